// The three host commands over one directory (DIR/waiting.json, DIR/business.db, DIR/checkpoints,
// DIR/host.lease). start runs the graph to its RequestInfoEvent and publishes the receipt naming the
// checkpoint of the SuperStepCompleted after it; resume rebuilds the graph in a fresh process, resumes
// that checkpoint, checks the re-emitted request's identities, records the decision and answers;
// status reads the business row and opens the checkpoint store, changing nothing.
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Demo320;

public sealed record HostOptions(string Dir, bool Strict);

public static class Host
{
    public const string LeaseName = "host.lease";

    private static readonly JsonSerializerOptions CheckpointJson = new()
    {
        TypeInfoResolver = new DefaultJsonTypeInfoResolver(),
    };

    // The operation id is derived from the draft (no clock, no randomness): the same draft in a fresh
    // directory gives the same id, and an interrupted start started again finds its own proposal.
    public static string OperationIdOf(string draft) =>
        "op-" + Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(draft)))[..16];

    public static async Task<int> StartAsync(HostOptions o, string draft)
    {
        Directory.CreateDirectory(o.Dir);
        using FileStream lease = TakeLease(o.Dir);
        WaitingReceipt? existing = WaitingReceipt.Read(o.Dir);
        if (existing is not null)
            throw HostError.Bad($"directory '{o.Dir}' already holds operation {existing.OperationId}; " +
                                "use `maf-demo320 status` or `resume`, or a fresh directory");
        string operationId = OperationIdOf(draft);
        using BusinessStore business = BusinessStore.Open(o.Dir, readOnly: false, o.Strict);
        JsonCheckpointStore store = CheckpointStores.Open(o.Dir, o.Strict);
        try
        {
            CheckpointManager manager = CheckpointManager.CreateJson(store, CheckpointJson);
            Workflow workflow = ApprovalWorkflow.Build(business, failAfterWrite: false);
            await using StreamingRun run = await InProcessExecution.RunStreamingAsync(
                workflow, new ApprovalProposal(operationId, draft), manager, operationId);
            WaitingReceipt receipt = await CaptureWaitingAsync(run, operationId);
            receipt.Publish(o.Dir, o.Strict);
            Console.WriteLine("OperationId: " + receipt.OperationId);
            Console.WriteLine("RequestId: " + receipt.RequestId);
            return HostError.Ok;
        }
        finally
        {
            (store as IDisposable)?.Dispose();
        }
    }

    private static async Task<WaitingReceipt> CaptureWaitingAsync(StreamingRun run, string operationId)
    {
        string? requestId = null;
        await foreach (WorkflowEvent evt in run.WatchStreamAsync())
        {
            FailOn(evt);
            if (evt is RequestInfoEvent request)
            {
                if (!request.Request.TryGetDataAs(out ApprovalTicket? ticket) || ticket?.OperationId != operationId)
                    throw HostError.After("the pending request is not this operation's");
                requestId = request.Request.RequestId;
            }
            if (requestId is not null && evt is SuperStepCompletedEvent { CompletionInfo.Checkpoint: { } checkpoint })
                return new WaitingReceipt(Identities.GraphVersion, checkpoint.SessionId, checkpoint.CheckpointId,
                                          operationId, requestId);
        }
        throw HostError.After("no checkpoint containing the pending request was observed");
    }

    private static void FailOn(WorkflowEvent evt)
    {
        Exception? error = evt switch
        {
            WorkflowErrorEvent e => e.Exception,
            ExecutorFailedEvent e => e.Data,
            _ => null,
        };
        if (error is null) return;
        if (error is FailAfterWrite) throw HostError.After(error.Message);
        if (error is HostError host) throw host;
        throw HostError.After("the workflow failed: " + error.Message);
    }

    public static async Task<int> ResumeAsync(HostOptions o, string choice, string comment, bool failAfterWrite)
    {
        RequireDirectory(o.Dir);
        if (!File.Exists(WaitingReceipt.PathIn(o.Dir)))
            throw HostError.Bad($"no waiting receipt in '{o.Dir}'; run `maf-demo320 start --dir {o.Dir}` first");
        using FileStream lease = TakeLease(o.Dir);
        if (o.Strict) Durability.Inherit(o.Dir, [WaitingReceipt.FileName]);
        WaitingReceipt receipt = WaitingReceipt.Read(o.Dir)
            ?? throw HostError.Bad($"no waiting receipt in '{o.Dir}'");
        if (!BusinessStore.Exists(o.Dir))
            throw HostError.Bad($"the directory '{o.Dir}' is damaged: its receipt names operation " +
                                $"{receipt.OperationId} but {BusinessStore.FileName} is missing");
        var decision = new ApprovalDecision(receipt.OperationId, choice, comment);
        using BusinessStore business = BusinessStore.Open(o.Dir, readOnly: false, o.Strict);
        ApprovalRow row = business.Read(receipt.OperationId)
            ?? throw HostError.Bad($"operation {receipt.OperationId} is not in the business database");
        BusinessStore.CheckReplay(row, decision);  // a conflicting decision changes nothing
        JsonCheckpointStore store = CheckpointStores.Open(o.Dir, o.Strict);
        try
        {
            CheckpointManager manager = CheckpointManager.CreateJson(store, CheckpointJson);
            Workflow workflow = ApprovalWorkflow.Build(business, failAfterWrite);
            ApprovalResult result = await AnswerAsync(workflow, manager, receipt, decision, business);
            if (result.ItemId is { } item) Console.WriteLine("ItemId: " + item);
            else Console.WriteLine($"{result.Status}: operation {result.OperationId} was rejected; no item was created");
            return HostError.Ok;
        }
        finally
        {
            (store as IDisposable)?.Dispose();
        }
    }

    private static async Task<ApprovalResult> AnswerAsync(Workflow workflow, CheckpointManager manager,
                                                          WaitingReceipt receipt, ApprovalDecision decision,
                                                          BusinessStore business)
    {
        StreamingRun run;
        try
        {
            run = await InProcessExecution.ResumeStreamingAsync(
                workflow, new CheckpointInfo(receipt.SessionId, receipt.CheckpointId), manager);
        }
        catch (Exception e) when (e is KeyNotFoundException or JsonException or InvalidOperationException)
        {
            throw HostError.Bad($"the waiting checkpoint {receipt.CheckpointId} cannot be resumed: {e.Message}");
        }
        await using (run)
        {
            bool answered = false;
            await foreach (WorkflowEvent evt in run.WatchStreamAsync())
            {
                FailOn(evt);
                if (evt is RequestInfoEvent request && !answered)
                {
                    request.Request.TryGetDataAs(out ApprovalTicket? ticket);
                    if (ticket?.OperationId != receipt.OperationId || request.Request.RequestId != receipt.RequestId)
                        throw HostError.Bad("the response does not match the pending request");
                    business.RecordDecision(decision);
                    KillHook.Hit("after-decision");
                    answered = true;
                    await run.SendResponseAsync(request.Request.CreateResponse(decision));
                }
                if (evt is WorkflowOutputEvent output && output.Data is ApprovalResult result) return result;
            }
            throw HostError.After(answered ? "the resumed run ended without a result"
                                           : "the resumed run re-emitted no pending request");
        }
    }

    public static async Task<int> StatusAsync(HostOptions o)
    {
        RequireDirectory(o.Dir);
        // What status reports must survive a power loss (strict): fsync changes no byte.
        if (o.Strict) Durability.Inherit(o.Dir, [WaitingReceipt.FileName]);
        WaitingReceipt? receipt = WaitingReceipt.Read(o.Dir);
        if (receipt is null)
        {
            if (BusinessStore.Exists(o.Dir))
                throw HostError.Bad($"a start in '{o.Dir}' was interrupted before it published its receipt " +
                                    "(business.db exists, waiting.json does not); run `maf-demo320 start` " +
                                    "again with the same --draft to finish it");
            throw HostError.Bad($"no waiting receipt in '{o.Dir}'; nothing was started there");
        }
        if (!BusinessStore.Exists(o.Dir))
            throw HostError.Bad($"the directory '{o.Dir}' is damaged: its receipt names operation " +
                                $"{receipt.OperationId} but {BusinessStore.FileName} is missing");
        await CheckCheckpointAsync(o, receipt);
        using BusinessStore business = BusinessStore.Open(o.Dir, readOnly: true, o.Strict);
        ApprovalRow row = business.Read(receipt.OperationId)
            ?? throw HostError.Bad($"the directory '{o.Dir}' is damaged: operation {receipt.OperationId} " +
                                   "is not in the business database");
        Console.WriteLine("Status: " + row.Status);
        if (business.StoredItem(receipt.OperationId) is { } item) Console.WriteLine("StoredItem: " + item);
        return HostError.Ok;
    }

    // The checkpoint store opens and holds the checkpoint the receipt names (read only: MAF's store
    // creates index.jsonl when it is missing, so a missing index is reported, not opened).
    private static async Task CheckCheckpointAsync(HostOptions o, WaitingReceipt receipt)
    {
        string dir = Path.Combine(o.Dir, CheckpointStores.DirName);
        if (!o.Strict && !File.Exists(Path.Combine(dir, "index.jsonl")))
            throw HostError.Bad($"the checkpoint store '{dir}' is damaged: index.jsonl is missing");
        JsonCheckpointStore store = CheckpointStores.Open(o.Dir, o.Strict);
        try
        {
            await store.RetrieveCheckpointAsync(receipt.SessionId, new CheckpointInfo(receipt.SessionId, receipt.CheckpointId));
        }
        catch (Exception e) when (e is KeyNotFoundException or JsonException or IOException)
        {
            throw HostError.Bad($"the checkpoint store '{dir}' does not hold the waiting checkpoint " +
                                $"{receipt.CheckpointId}: {e.Message}");
        }
        finally
        {
            (store as IDisposable)?.Dispose();
        }
    }

    private static void RequireDirectory(string dir)
    {
        if (!Directory.Exists(dir))
            throw HostError.Bad($"directory '{dir}' does not exist; run `maf-demo320 start --dir {dir}` first");
    }

    private static FileStream TakeLease(string dir)
    {
        try
        {
            return new FileStream(Path.Combine(dir, LeaseName), FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
        }
        catch (IOException)
        {
            throw HostError.Bad($"another maf-demo320 host holds '{Path.Combine(dir, LeaseName)}'; " +
                                "wait for it to finish (one host per directory)");
        }
    }
}
