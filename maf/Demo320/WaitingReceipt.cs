// waiting.json, the receipt start publishes once the checkpoint holding the pending request exists:
// GraphVersion, SessionId and CheckpointId locate the engine state, OperationId the business
// operation, RequestId the engine request. Published by temp file + rename (maf-json, as the seed
// does) or by Durability.Publish (strict: fsync of the temp file and of the directory as well).
using System.Text.Json;

namespace Stepfault.Maf.Demo320;

public sealed record WaitingReceipt(string GraphVersion, string SessionId, string CheckpointId,
                                    string OperationId, string RequestId)
{
    public const string FileName = "waiting.json";

    public static string PathIn(string dir) => Path.Combine(dir, FileName);

    public void Publish(string dir, bool strict)
    {
        byte[] bytes = JsonSerializer.SerializeToUtf8Bytes(this);
        string path = PathIn(dir);
        if (strict)
        {
            Durability.Publish(path, bytes, killPointAfterTmp: "after-waiting-tmp");
        }
        else
        {
            File.WriteAllBytes(path + ".tmp", bytes);
            KillHook.Hit("after-waiting-tmp");
            File.Move(path + ".tmp", path, overwrite: true);
        }
        KillHook.Hit("after-waiting");
    }

    // null: no receipt. A receipt that does not parse or names another graph is damage (exit 2).
    public static WaitingReceipt? Read(string dir)
    {
        string path = PathIn(dir);
        if (!File.Exists(path)) return null;
        WaitingReceipt? receipt;
        try
        {
            receipt = JsonSerializer.Deserialize<WaitingReceipt>(File.ReadAllBytes(path));
        }
        catch (JsonException e)
        {
            throw HostError.Bad($"the receipt '{path}' is damaged ({e.Message}); the directory cannot be resumed");
        }
        if (receipt is null || receipt.SessionId is null || receipt.CheckpointId is null ||
            receipt.OperationId is null || receipt.RequestId is null || receipt.GraphVersion is null)
            throw HostError.Bad($"the receipt '{path}' is damaged (a member is missing)");
        if (receipt.GraphVersion != Identities.GraphVersion)
            throw HostError.Bad($"the receipt names graph version '{receipt.GraphVersion}'; this host runs " +
                                $"'{Identities.GraphVersion}' and does not migrate");
        return receipt;
    }
}
