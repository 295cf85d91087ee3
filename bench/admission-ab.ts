import { appendFileSync, mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { readProjectInstructions } from "../src/agent/instructions/agents-files.js";
import { sandbox } from "../src/conformance/harness.js";
import { createModelServices } from "../src/server/handlers/model-services.js";
import { admitTurn } from "../src/server/handlers/turn-admission.js";
import { createState } from "../src/server/state.js";
import { HistoryMemo } from "../src/sessions/history/admission-memo.js";
import { cacheDoc, demoConfig, writeCache, writeConfig } from "../test/models/fixtures.js";

/**
 * `node dist/bench/admission-ab.js [short=100] [long=1000] [rounds=60]`: a turn's admission as the
 * child runs it up to its prompt (turn-engine.ts: admitTurn, then the project instructions),
 * in-process, on a history of `short` and one of `long` soak-like turns (bench/admission-passes.ts's
 * turns), a turn appended before each admission, the two sizes alternating, so that the ratio
 * long / short is the soak's admission row (issue 44) without the pipes and the stream between.
 * It runs on another build's dist too (copy the compiled file into its dist/bench), for an A/B
 * in the same minutes.
 */
const short = Number(process.argv[2] ?? 100);
const long = Number(process.argv[3] ?? 1000);
const rounds = Number(process.argv[4] ?? 60);

const box = sandbox("mc-bench-admission-ab-");
const identity = { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };
writeConfig(box, demoConfig(identity.base_url, { model: "demo/demo-1" }));
writeCache(box, "demo", cacheDoc("demo", identity, [{ id: "demo-1" }]));
mkdirSync(join(box.home, "sessions"), { recursive: true, mode: 0o700 });
const cwd = box.workspace;
const ts = "2026-01-01T00:00:00.000Z";
const usage = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const answer = "lorem ipsum dolor sit amet ".repeat(76);

/** One soak-like turn's records, appended as the child appends them (a write each). */
function appendTurn(path: string, n: number): void {
  const at = { ts, cwd, turn_id: `t-${n}` };
  const records: object[] = [
    { type: "turn_start", ...at, model: "demo/demo-1", effort: null, permissions: "full_access" },
    { type: "user_message", ...at, text: `question ${n}` },
    { type: "tool_call", ...at, item_id: `i-${n}`, tool: "shell", input: { command: "ls -la" } },
    { type: "tool_result", ...at, item_id: `i-${n}`, status: "completed", output: "x".repeat(300) },
    { type: "assistant_message", ...at, text: answer, model: "demo/demo-1" },
    { type: "turn_end", ...at, status: "completed", stop_reason: "end_turn", usage },
  ];
  if (n % 150 === 149)
    records.push({ type: "compaction", ...at, summary: "so far", tokens_before: 90_000 });
  for (const record of records) appendFileSync(path, `${JSON.stringify(record)}\n`);
}

const sides = [short, long].map((turns) => {
  const id = `s-${turns}`;
  const path = join(box.home, "sessions", `${id}.jsonl`);
  appendFileSync(path, `${JSON.stringify({ type: "session_meta", ts, cwd, id })}\n`);
  for (let n = 0; n < turns; n++) appendTurn(path, n);
  const state = createState(cwd, box.home, { DEMO_KEY: "sk-bench" });
  state.attachment = { session_id: id, saved: true };
  state.selection = { model: "demo/demo-1", effort: null };
  return { turns, path, state, services: createModelServices(state), memo: new HistoryMemo() };
});
type Side = (typeof sides)[number];

/** One admission up to the prompt, in ms: admitTurn, then the project instructions. */
async function admission(side: Side): Promise<number> {
  const { state, services, memo } = side;
  const started = performance.now();
  const admitted = await admitTurn(state, services, new AbortController().signal, memo);
  await readProjectInstructions(state.home, state.cwd);
  const ms = performance.now() - started;
  await admitted.writer.close();
  return ms;
}

try {
  const ms = sides.map(() => [] as number[]);
  for (const side of sides) await admission(side);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const side = sides[i] as Side;
      appendTurn(side.path, side.turns + round);
      ms[i]?.push(await admission(side));
    }
  }
  const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
  const [a, b] = ms.map((values) => p50(values)) as [number, number];
  console.log(
    `admission p50 ${short} turns ${a.toFixed(2)} ms, ${long} turns ${b.toFixed(2)} ms: ${(b / a).toFixed(2)}, load ${loadavg()[0]?.toFixed(1)}`,
  );
} finally {
  box.cleanup();
}
