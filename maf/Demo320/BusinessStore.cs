// business.db, the operation's business state (Microsoft.Data.Sqlite): Approvals binds OperationId to
// its immutable draft and records the first valid decision; ApprovedBacklogItems holds at most one row
// per operation (UNIQUE OperationId), inserted with the Completed mark in one transaction. A replay of
// the same decision is a no-op; a different one is refused and changes nothing.
// CreatedUtc is the fixed logical value "logical:1", never the wall clock: every run writes the same bytes.
// Strict profile: synchronous=EXTRA (the journal's deletion is synced too) and, before trusting what
// a dead process left, fsync of the database, its journal and the directory (Durability.Inherit).
using Microsoft.Data.Sqlite;

namespace Stepfault.Maf.Demo320;

public sealed record ApprovalRow(string OperationId, string Draft, string Status, string? Choice,
                                 string? Comment, long? ItemId);

public sealed class BusinessStore : IDisposable
{
    public const string FileName = "business.db";
    private const string CreatedUtc = "logical:1";
    private readonly SqliteConnection _connection;

    private BusinessStore(SqliteConnection connection) => _connection = connection;

    public static bool Exists(string dir) => File.Exists(Path.Combine(dir, FileName));

    // readOnly: never creates or changes the file (a hot journal then is an error, exit 2).
    public static BusinessStore Open(string dir, bool readOnly, bool strict)
    {
        string path = Path.Combine(dir, FileName);
        if (strict) Durability.Inherit(dir, [FileName, FileName + "-journal"]);
        var builder = new SqliteConnectionStringBuilder
        {
            DataSource = path,
            Mode = readOnly ? SqliteOpenMode.ReadOnly : SqliteOpenMode.ReadWriteCreate,
            Pooling = false,
        };
        var connection = new SqliteConnection(builder.ToString());
        try
        {
            connection.Open();
            var store = new BusinessStore(connection);
            store.Execute(strict ? "PRAGMA synchronous=EXTRA" : "PRAGMA synchronous=FULL");
            if (!readOnly)
            {
                store.Execute("CREATE TABLE IF NOT EXISTS Approvals(OperationId TEXT PRIMARY KEY, " +
                              "Draft TEXT NOT NULL, Status TEXT NOT NULL CHECK(Status IN " +
                              "('Waiting','Approved','Rejected','Completed')), Decision TEXT NULL, Comment TEXT NULL)");
                store.Execute("CREATE TABLE IF NOT EXISTS ApprovedBacklogItems(ItemId INTEGER PRIMARY KEY " +
                              "AUTOINCREMENT, OperationId TEXT NOT NULL UNIQUE, Draft TEXT NOT NULL, CreatedUtc TEXT NOT NULL)");
            }
            return store;
        }
        catch (SqliteException e)
        {
            connection.Dispose();
            throw HostError.Bad($"business database '{path}' cannot be read: {e.Message}");
        }
    }

    public void Dispose() => _connection.Dispose();

    private void Execute(string sql)
    {
        using var command = _connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    // Binds the draft to the operation; registering the same draft again is a no-op.
    public void Register(string operationId, string draft)
    {
        using var command = _connection.CreateCommand();
        command.CommandText = "INSERT INTO Approvals(OperationId,Draft,Status) VALUES($id,$draft,'Waiting') " +
                              "ON CONFLICT(OperationId) DO NOTHING";
        command.Parameters.AddWithValue("$id", operationId);
        command.Parameters.AddWithValue("$draft", draft);
        command.ExecuteNonQuery();
        ApprovalRow row = Read(operationId) ?? throw HostError.After("the proposal row vanished");
        if (row.Draft != draft)
            throw HostError.Bad($"operation {operationId} is bound to another draft; use a fresh directory");
    }

    public ApprovalRow? Read(string operationId)
    {
        try
        {
            using var command = _connection.CreateCommand();
            command.CommandText = "SELECT a.OperationId,a.Draft,a.Status,a.Decision,a.Comment," +
                                  "(SELECT MIN(b.ItemId) FROM ApprovedBacklogItems b WHERE b.OperationId=a.OperationId) " +
                                  "FROM Approvals a WHERE a.OperationId=$id";
            command.Parameters.AddWithValue("$id", operationId);
            using var reader = command.ExecuteReader();
            if (!reader.Read()) return null;
            return new ApprovalRow(reader.GetString(0), reader.GetString(1), reader.GetString(2),
                                   reader.IsDBNull(3) ? null : reader.GetString(3),
                                   reader.IsDBNull(4) ? null : reader.GetString(4),
                                   reader.IsDBNull(5) ? null : reader.GetInt64(5));
        }
        catch (SqliteException e)
        {
            throw HostError.Bad($"business database cannot be read: {e.Message}");
        }
    }

    // The stored item as `status` reports it: a join on a Completed approval, independent of the engine.
    public long? StoredItem(string operationId)
    {
        using var command = _connection.CreateCommand();
        command.CommandText = "SELECT b.ItemId FROM Approvals a JOIN ApprovedBacklogItems b ON b.OperationId=a.OperationId " +
                              "WHERE a.OperationId=$id AND a.Status='Completed' ORDER BY b.ItemId LIMIT 1";
        command.Parameters.AddWithValue("$id", operationId);
        object? value = command.ExecuteScalar();
        return value is long id ? id : null;
    }

    // Refuses (exit 2, nothing changed) a decision that differs from the one already recorded.
    public static void CheckReplay(ApprovalRow row, ApprovalDecision decision)
    {
        if (row.Choice is null) return;
        if (row.Choice != decision.Choice || row.Comment != decision.Comment)
        {
            throw HostError.Bad($"operation {row.OperationId} was already decided '{row.Choice}' with " +
                                $"comment \"{row.Comment}\"; a replay must repeat that exact decision");
        }
    }

    // Persists the first valid decision (Waiting -> Approved|Rejected); an exact replay is a no-op.
    public void RecordDecision(ApprovalDecision decision)
    {
        ApprovalRow row = Read(decision.OperationId)
            ?? throw HostError.Bad($"operation {decision.OperationId} is not in the business database");
        CheckReplay(row, decision);
        if (row.Choice is not null) return;
        using var command = _connection.CreateCommand();
        command.CommandText = "UPDATE Approvals SET Status=$status,Decision=$choice,Comment=$comment " +
                              "WHERE OperationId=$id AND Status='Waiting'";
        command.Parameters.AddWithValue("$status", decision.Choice == Identities.Approve ? "Approved" : "Rejected");
        command.Parameters.AddWithValue("$choice", decision.Choice);
        command.Parameters.AddWithValue("$comment", decision.Comment);
        command.Parameters.AddWithValue("$id", decision.OperationId);
        command.ExecuteNonQuery();
    }

    // The idempotent effect: the row and the Completed mark in one transaction.
    public ApprovalRow Apply(ApprovalDecision decision)
    {
        RecordDecision(decision);
        using (var transaction = _connection.BeginTransaction())
        using (var command = _connection.CreateCommand())
        {
            command.Transaction = transaction;
            command.CommandText =
                "INSERT INTO ApprovedBacklogItems(OperationId,Draft,CreatedUtc) " +
                "SELECT OperationId,Draft,$utc FROM Approvals WHERE OperationId=$id AND Status IN ('Approved','Completed') " +
                "ON CONFLICT(OperationId) DO NOTHING; " +
                "UPDATE Approvals SET Status='Completed' WHERE OperationId=$id AND Status='Approved';";
            command.Parameters.AddWithValue("$id", decision.OperationId);
            command.Parameters.AddWithValue("$utc", CreatedUtc);
            command.ExecuteNonQuery();
            transaction.Commit();
        }
        return Read(decision.OperationId)!;
    }
}
