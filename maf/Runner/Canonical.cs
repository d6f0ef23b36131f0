// Canonical JSON: object keys sorted (ordinal), no insignificant whitespace, non-ASCII kept as is. The trace lines
// the runner prints are canonical, so two equal traces are equal text; the C++ side compares parsed values anyway.
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Stepfault.Maf.Runner;

public static class Canonical
{
    static readonly JsonWriterOptions Options = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public static string Dump(JsonNode? node)
    {
        using var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream, Options)) { Write(writer, node); }
        return System.Text.Encoding.UTF8.GetString(stream.ToArray());
    }

    static void Write(Utf8JsonWriter w, JsonNode? node)
    {
        switch (node)
        {
            case null: w.WriteNullValue(); break;
            case JsonObject o:
                w.WriteStartObject();
                foreach (var kv in o.OrderBy(kv => kv.Key, StringComparer.Ordinal))
                {
                    w.WritePropertyName(kv.Key);
                    Write(w, kv.Value);
                }
                w.WriteEndObject();
                break;
            case JsonArray a:
                w.WriteStartArray();
                foreach (JsonNode? item in a) Write(w, item);
                w.WriteEndArray();
                break;
            default: node.WriteTo(w); break;
        }
    }

    // Sorts an array of JSON values by their canonical text: the multisets of the trace format.
    public static JsonArray SortedArray(IEnumerable<JsonNode?> items) =>
        new(items.Select(i => (text: Dump(i), node: i)).OrderBy(p => p.text, StringComparer.Ordinal)
                 .Select(p => JsonNode.Parse(p.text)).ToArray());
}
