// maf-demo320: the command line of the Demo320 host (a small strict hand parser; see Usage). Every
// argument is checked before anything touches the directory; exit codes as `stepfault approval`:
// 0 ok, 1 failed after the command began changing the directory, 2 bad usage or input or a damaged
// directory (nothing changed), 4 internal error.
using System.Text;
using Stepfault.Maf.Demo320;

const string Usage = """
    usage: maf-demo320 start  --dir DIR [--draft TEXT] [--store maf-json|strict]
           maf-demo320 status --dir DIR [--store maf-json|strict]
           maf-demo320 resume --dir DIR approve|reject COMMENT [--fail-after-write] [--store maf-json|strict]
    """;

try
{
    return await RunAsync(args);
}
catch (HostError e)
{
    Console.Error.WriteLine($"maf-demo320 {(args.Length > 0 ? args[0] : "")}: {e.Message}");
    if (e.ExitCode == HostError.Usage && e.Message.StartsWith("usage", StringComparison.Ordinal)) Console.Error.WriteLine(Usage);
    return e.ExitCode;
}
catch (Exception e)
{
    Console.Error.WriteLine($"maf-demo320: internal error (please report, with the command): {e}");
    return HostError.Internal;
}

static async Task<int> RunAsync(string[] args)
{
    if (args.Length == 0) throw HostError.Bad("usage: name a command (start, status, resume)");
    string command = args[0];
    string? dir = null, draft = null, store = null;
    bool failAfterWrite = false;
    var positional = new List<string>();
    for (int i = 1; i < args.Length; i++)
    {
        string a = args[i];
        string Value() => i + 1 < args.Length ? args[++i] : throw HostError.Bad($"usage: {a} needs a value");
        switch (a)
        {
            case "--dir": dir = Value(); break;
            case "--draft" when command == "start": draft = Value(); break;
            case "--store": store = Value(); break;
            case "--fail-after-write" when command == "resume": failAfterWrite = true; break;
            default:
                if (a.StartsWith("--", StringComparison.Ordinal)) throw HostError.Bad($"usage: unknown option '{a}' for {command}");
                positional.Add(a);
                break;
        }
    }
    if (string.IsNullOrEmpty(dir)) throw HostError.Bad($"usage: {command} needs --dir DIR");
    store ??= "maf-json";
    if (store != "maf-json" && store != "strict")
        throw HostError.Bad($"usage: --store '{store}' is not maf-json or strict");
    KillHook.Check();
    var options = new HostOptions(dir, store == "strict");
    switch (command)
    {
        case "start":
            if (positional.Count != 0) throw HostError.Bad($"usage: start takes no argument '{positional[0]}'");
            draft ??= Identities.DefaultDraft;
            if (draft.Length == 0) throw HostError.Bad("the draft is empty; pass --draft TEXT");
            if (Encoding.UTF8.GetByteCount(draft) > Identities.DraftMaxBytes)
                throw HostError.Bad($"the draft is longer than {Identities.DraftMaxBytes} bytes; shorten it");
            return await Host.StartAsync(options, draft);
        case "status":
            if (positional.Count != 0) throw HostError.Bad($"usage: status takes no argument '{positional[0]}'");
            return await Host.StatusAsync(options);
        case "resume":
            if (positional.Count != 2) throw HostError.Bad("usage: resume needs approve|reject and a COMMENT");
            ValidateDecision(positional[0], positional[1]);
            return await Host.ResumeAsync(options, positional[0], positional[1], failAfterWrite);
        default:
            throw HostError.Bad($"usage: unknown command '{command}'");
    }
}

static void ValidateDecision(string choice, string comment)
{
    if (choice != Identities.Approve && choice != Identities.Reject)
        throw HostError.Bad($"decision '{choice}' is not allowed; use exactly 'approve' or 'reject' (lower case)");
    int chars = comment.EnumerateRunes().Count();
    if (chars == 0) throw HostError.Bad($"the comment is empty; give a comment of 1 to {Identities.CommentMaxChars} characters");
    if (chars > Identities.CommentMaxChars)
        throw HostError.Bad($"the comment has {chars} characters; shorten it to at most {Identities.CommentMaxChars}");
    if (string.IsNullOrWhiteSpace(comment))
        throw HostError.Bad("the comment is blank (only whitespace); say why the proposal is approved or rejected");
}
