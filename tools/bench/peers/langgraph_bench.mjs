// LangGraph.js MemorySaver on stepfault-bench's linear shape: a ring of 8 nodes passing one
// token, the token holder rewriting its own state channel (100 B or 1 MB of fresh bytes) each
// super-step. Measures the CPU time per super-step with MemorySaver and without a checkpointer,
// side by side in one process (both warmed up at full length first, their order alternating per
// repetition), medians of `reps` repetitions, and prints one JSON object on
// stdout (the per-step overhead is checked - unchecked). Timing is fine here: this is a
// benchmark, not a test. Usage: node langgraph_bench.mjs [reps]
import { createRequire } from "node:module";
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";

const require = createRequire(import.meta.url);
const LENGTH = 8;
const reps = Number(process.argv[2] ?? 3);

// Deterministic hex pool, as in stepfault-bench (a fresh slice per node and step).
function pool(bytes) {
  let x = 0x9e3779b9;
  const out = new Array(bytes * 2);
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = "0123456789abcdef"[x & 15];
  }
  return out.join("");
}

function buildGraph(stateBytes, steps, checkpointer) {
  const fields = { count: Annotation() };
  for (let i = 0; i < LENGTH; i++) fields[`s${i}`] = Annotation();
  const State = Annotation.Root(fields);
  const hex = pool(stateBytes);
  let g = new StateGraph(State);
  for (let i = 0; i < LENGTH; i++) {
    g = g.addNode(`n${i}`, (state) => {
      const k = (state.count * 7 + i) % stateBytes;
      // A new flat string of exactly stateBytes: the rewritten private state.
      const fresh = Buffer.from(hex.substring(k, k + stateBytes), "latin1").toString("latin1");
      return { [`s${i}`]: fresh, count: state.count + 1 };
    });
  }
  g = g.addEdge(START, "n0");
  for (let i = 0; i < LENGTH; i++) {
    const next = `n${(i + 1) % LENGTH}`;
    g = g.addConditionalEdges(`n${i}`, (state) => (state.count >= steps ? END : next), [next, END]);
  }
  return g.compile(checkpointer ? { checkpointer } : {});
}

async function timePerStep(stateBytes, steps, withSaver) {
  const init = { count: 0 };
  const filler = "y".repeat(stateBytes);
  for (let i = 0; i < LENGTH; i++) init[`s${i}`] = filler;
  const graph = buildGraph(stateBytes, steps, withSaver ? new MemorySaver() : null);
  const config = { recursionLimit: steps + 10, configurable: { thread_id: "bench" } };
  // Process CPU time (user + system, all threads), not wall time: on a machine shared with other
  // jobs the wall clock mostly measures the wait for a core. stepfault-bench reports CPU time too.
  const t0 = process.cpuUsage();
  const out = await graph.invoke(init, config);
  const t = process.cpuUsage(t0);
  if (out.count !== steps) throw new Error(`ran ${out.count} steps, wanted ${steps}`);
  return (t.user + t.system) / steps;  // CPU µs per super-step
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const shapes = [];
for (const [stateBytes, steps] of [
  [100, 400],
  [1048576, 24],
]) {
  // Warm the JIT up on both variants at full length, then alternate which goes first, so a
  // drift during the run does not land on one side.
  await timePerStep(stateBytes, steps, false);
  await timePerStep(stateBytes, steps, true);
  const checked = [], unchecked = [];
  for (let r = 0; r < reps; r++) {
    for (const withSaver of r % 2 === 0 ? [false, true] : [true, false]) {
      (withSaver ? checked : unchecked).push(await timePerStep(stateBytes, steps, withSaver));
    }
  }
  const c = median(checked), u = median(unchecked);
  shapes.push({
    shape: "linear", length: LENGTH, state_bytes_per_executor: stateBytes, steps, reps,
    checked_us_per_step: c, unchecked_us_per_step: u, overhead_us_per_step: c - u,
    checked_all: checked, unchecked_all: unchecked,
  });
}
const version = require("@langchain/langgraph/package.json").version;
console.log(JSON.stringify({ peer: "langgraph-js", langgraph_version: version,
                             node_version: process.version, saver: "MemorySaver", shapes }));
