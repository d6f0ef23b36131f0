// The typed messages of the Demo320 graph and the host's fixed identities. The graph version, the
// executor and port ids and these record shapes are what a checkpoint refers to: changing any of
// them needs a migration, so a receipt naming another GraphVersion is refused.
namespace Stepfault.Maf.Demo320;

public sealed record ApprovalProposal(string OperationId, string Draft);

public sealed record ApprovalTicket(string OperationId, string Draft);

public sealed record ApprovalDecision(string OperationId, string Choice, string Comment);

// What ApplyApprovalV1 returns: the stored item, or none for a rejection.
public sealed record ApprovalResult(string OperationId, string Status, long? ItemId);

public static class Identities
{
    public const string GraphVersion = "Demo320.ApprovalGraph.v1";
    public const string PrepareId = "PrepareApprovalV1";
    public const string PortId = "BusinessApprovalV1";
    public const string ApplyId = "ApplyApprovalV1";
    public const string Approve = "approve";
    public const string Reject = "reject";
    public const int CommentMaxChars = 500;
    public const int DraftMaxBytes = 4096;
    public const string DefaultDraft = "Regional pilot: route first-line tickets through the new triage queue.";
}
