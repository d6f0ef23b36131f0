// The Demo320 graph on real MAF: PrepareApprovalV1 -> RequestPort "BusinessApprovalV1"
// (ApprovalTicket -> ApprovalDecision) -> ApplyApprovalV1, output from Apply. The graph is rebuilt
// with the same ids on every resume; Prepare registers the proposal and must not run again after the
// wait, Apply records the decision again (identity check) and runs the idempotent effect.
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Demo320;

public static class ApprovalWorkflow
{
    public static Workflow Build(BusinessStore store, bool failAfterWrite)
    {
        var prepare = new Prepare(store);
        var port = RequestPort.Create<ApprovalTicket, ApprovalDecision>(Identities.PortId);
        var apply = new Apply(store, failAfterWrite);
        return new WorkflowBuilder(prepare).AddEdge(prepare, port).AddEdge(port, apply)
            .WithOutputFrom(apply).Build();
    }

    private sealed class Prepare(BusinessStore store)
        : Executor<ApprovalProposal, ApprovalTicket>(Identities.PrepareId)
    {
        public override ValueTask<ApprovalTicket> HandleAsync(ApprovalProposal message, IWorkflowContext context,
                                                              CancellationToken cancellationToken = default)
        {
            store.Register(message.OperationId, message.Draft);
            return ValueTask.FromResult(new ApprovalTicket(message.OperationId, message.Draft));
        }
    }

    private sealed class Apply(BusinessStore store, bool failAfterWrite)
        : Executor<ApprovalDecision, ApprovalResult>(Identities.ApplyId)
    {
        public override ValueTask<ApprovalResult> HandleAsync(ApprovalDecision message, IWorkflowContext context,
                                                              CancellationToken cancellationToken = default)
        {
            ApprovalRow row = store.Apply(message);
            KillHook.Hit("after-commit");
            if (failAfterWrite) throw new FailAfterWrite();
            return ValueTask.FromResult(new ApprovalResult(row.OperationId, row.Status, row.ItemId));
        }
    }
}

// Thrown by Apply right after the business commit when --fail-after-write is given.
public sealed class FailAfterWrite() : Exception("--fail-after-write: failing right after the business commit");
