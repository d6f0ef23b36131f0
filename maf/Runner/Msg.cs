// The one message type every scenario executor sends: the scenario's message type name and its JSON body, kept as
// canonical text (sorted keys) so MAF serializes it into checkpoints as a plain string and the normalizer can read
// it back without knowing MAF's type registry.
using System.Text.Json.Nodes;

namespace Stepfault.Maf.Runner;

public sealed class Msg
{
    public Msg() { }
    public Msg(string type, JsonObject body) { this.Type = type; this.Body = Canonical.Dump(body); }

    public string Type { get; set; } = "";
    public string Body { get; set; } = "{}";

    public JsonObject BodyObject() => JsonNode.Parse(this.Body)!.AsObject();
    public JsonObject ToJson() => new() { ["type"] = this.Type, ["body"] = this.BodyObject() };
}
