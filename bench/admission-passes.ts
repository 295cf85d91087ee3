import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { HistoryMemo } from "../src/sessions/history/admission-memo.js";
import { Slicer } from "../src/sessions/slicer.js";

/**
 * `node dist/bench/admission-passes.js [short=100] [long=1000] [rounds=60]`: a turn's two
 * admission passes over a saved history (the check before the lock, then the replay under it:
 * src/server/handlers/turn-admission.ts), through one memo as the child keeps it, on a history
 * of `short` and one of `long` soak-like turns (a tool call, a few hundred bytes of output, a 2 KB
 * answer, a compaction every 150 turns), a turn appended before each admission as the last turn
 * would have. The two sizes alternate, so the ratio long / short (issue 44: the soak's late
 * admissions against its early ones) is of one run, and it is the passes' CPU only, without the
 * rest of an admission nor the pipes' noise. The quick look behind docs/benchmarks.md's soak rows.
 */
const short = Number(process.argv[2] ?? 100);
const long = Number(process.argv[3] ?? 1000);
const rounds = Number(process.argv[4] ?? 60);

const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-bench-admission-")));
const cwd = join(home, "workspace");
mkdirSync(cwd);
mkdirSync(join(home, "sessions"));
const ts = "2026-01-01T00:00:00.000Z";
const usage = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const answer = "lorem ipsum dolor sit amet ".repeat(76);

function turn(n: number): string {
  const at = { ts, cwd, turn_id: `t-${n}` };
  const records: object[] = [
    { type: "turn_start", ...at, model: "demo/demo-1", effort: null, permissions: "full_access" },
    { type: "user_message", ...at, text: `question ${n}` },
    { type: "tool_call", ...at, item_id: `i-${n}`, tool: "shell", input: { command: "ls -la" } },
    {
      type: "tool_result",
      ...at,
      item_id: `i-${n}`,
      status: "completed",
      output: "x".repeat(300),
      exit_code: 0,
    },
    { type: "assistant_message", ...at, text: answer, model: "demo/demo-1" },
    { type: "turn_end", ...at, status: "completed", stop_reason: "end_turn", usage },
  ];
  if (n % 150 === 149)
    records.push({ type: "compaction", ...at, summary: "so far", tokens_before: 90_000 });
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}

const slicer = () => new Slicer(new AbortController().signal);
const path = (id: string) => join(home, "sessions", `${id}.jsonl`);
const sides = [short, long].map((turns) => {
  const id = `s-${turns}`;
  appendFileSync(path(id), `${JSON.stringify({ type: "session_meta", ts, cwd, id })}\n`);
  for (let n = 0; n < turns; n++) appendFileSync(path(id), turn(n));
  return { id, turns, memo: new HistoryMemo(), ms: [] as number[] };
});
try {
  for (const side of sides) await side.memo.exactReplay(home, cwd, side.id, slicer());
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      appendFileSync(path(side.id), turn(side.turns + round));
      const started = performance.now();
      await side.memo.exact(home, cwd, side.id, slicer());
      await side.memo.exactReplay(home, cwd, side.id, slicer());
      side.ms.push(performance.now() - started);
    }
  }
  const p50 = (ms: number[]) => [...ms].sort((a, b) => a - b)[ms.length >> 1] ?? Number.NaN;
  for (const side of sides) {
    const mib = statSync(path(side.id)).size / 1_048_576;
    console.log(
      `${side.turns} turns, ${mib.toFixed(2)} MiB: both passes p50 ${p50(side.ms).toFixed(2)} ms, min ${Math.min(...side.ms).toFixed(2)} ms`,
    );
  }
  const [a, b] = sides.map((s) => p50(s.ms)) as [number, number];
  console.log(
    `p50 ${long} / ${short} turns: ${(b / a).toFixed(2)}, load ${loadavg()[0]?.toFixed(1)}`,
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
