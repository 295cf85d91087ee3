import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "../src/conformance/frame.js";
import type { Sandbox, TestChild } from "../src/conformance/harness.js";
import { answerEvents, call } from "../test/fixtures/chat-completions-server.js";
import type { BenchServer, Planner, SeenCall } from "./turn-server.js";
import type { Streamer } from "./turn-world.js";

/**
 * Issue 44's long-session soak: one session, many turns against the loopback server, each turn
 * as a working session's is: the model says a few words and calls `shell` (a few hundred bytes
 * of output), then answers 2 KB; the model's context window is set so that the session compacts
 * several times. Per turn: admission (turn.start written to its `turn_started` read; stdio
 * and the SDK) and first delta (the server's first byte, the rest held back, to the first delta
 * read); every `every` turns: the process's resident memory and the history's size.
 * bench/soak.bench.ts runs it at the issue's size; test/bench/soak.test.ts scaled down.
 */
/**
 * What the soak drives: a Streamer of the turn benchmarks (the stdio child, `mc-agent acp`) or
 * the SDK's (bench/sdk-streamer.ts), whose `proc` is only a reader of what the SDK delivers.
 */
export type SoakStreamer = Pick<Streamer, "deltaOf" | "begin" | "forget"> & {
  readonly proc: Pick<TestChild, "waitFor" | "pid">;
};

export interface SoakOptions {
  turns: number;
  /** RSS and the history's size are sampled every this many turns (and after the last). */
  every: number;
  /** The frame that admits a turn (stdio, the SDK: its `turn_started`), or none (ACP). */
  admitted?: (frame: Frame) => boolean;
  /** Told each sample as it is taken (a long run's progress). */
  onSample?: (sample: SoakSample) => void;
}

export interface SoakSample {
  turn: number;
  rssMb: number;
  historyBytes: number;
}

export interface SoakResult {
  samples: SoakSample[];
  /** Per turn, in ms; empty without `admitted`. */
  admissionMs: number[];
  firstDeltaMs: number[];
  /** Compaction summary calls the server answered. */
  summaries: number;
  /** Model calls the server answered (summaries included). */
  calls: number;
}

/** Characters of the closing answer of a turn: the 2 KB reply. */
const REPLY_CHARS = 2048;
const PIECE = "reply text piece ";
/** About 380 bytes of output: twenty numbered lines. */
const COMMAND = "printf 'a line of tool output %03d\\n' $(seq 1 20)";
/** Tokens of context one turn adds, about (the engine's estimate: bytes / 4). */
export const TOKENS_PER_TURN = 800;

/** The model's side of a soak turn: a tool call first, the 2 KB answer after its result. */
export function soakPlanner(counts: { summaries: number; calls: number }): Planner {
  const reply = Array.from({ length: Math.ceil(REPLY_CHARS / PIECE.length) }, () => PIECE);
  return (seen: SeenCall) => {
    counts.calls += 1;
    const usage = { prompt_tokens: Math.ceil(seen.bytes / 4), completion_tokens: 600 };
    const messages = (seen.body?.messages ?? []) as { role?: string }[];
    const tools = seen.body?.tools as unknown[] | undefined;
    let lines: string[];
    if (!tools || tools.length === 0) {
      counts.summaries += 1;
      lines = answerEvents({ text: ["The work so far: ", "many turns of shell output."], usage });
    } else if (messages[messages.length - 1]?.role === "tool") {
      lines = answerEvents({ text: reply, usage });
    } else {
      lines = answerEvents({
        text: ["Let me ", "look."],
        calls: [call("shell", { command: COMMAND }, `call_${counts.calls}`)],
        usage,
      });
    }
    return { head: lines.slice(0, 2), rest: lines.slice(2) };
  };
}

/** The process's resident memory now, in MB (VmRSS), or NaN where /proc has none. */
export function rssMb(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The largest history under the sandbox's store: the soak's one session. */
export function historyBytes(box: Sandbox): number {
  const folder = join(box.home, "sessions");
  let largest = 0;
  for (const name of readdirSync(folder))
    if (name.endsWith(".jsonl")) largest = Math.max(largest, statSync(join(folder, name)).size);
  return largest;
}

const msSince = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/** Runs the soak on `streamer` (a fresh session on `box`), its server's plan set here. */
export async function soak(
  server: BenchServer,
  streamer: SoakStreamer,
  box: Sandbox,
  options: SoakOptions,
): Promise<SoakResult> {
  const counts = { summaries: 0, calls: 0 };
  const planner = soakPlanner(counts);
  const result: SoakResult = { samples: [], admissionMs: [], firstDeltaMs: [], ...counts };
  for (let turn = 1; turn <= options.turns; turn += 1) {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The turn's first call is gated until its first delta is read; its others run free.
    let first = true;
    server.plan((seen) => {
      const planned = planner(seen);
      if (!first) return planned;
      first = false;
      return { ...planned, gate };
    });
    const firstByte = server.nextFirstByte();
    const proc = streamer.proc;
    const firstDelta = proc
      .waitFor((f) => streamer.deltaOf(f) !== "", 120_000)
      .then(() => process.hrtime.bigint());
    const admitted = options.admitted;
    const admission = admitted
      ? proc.waitFor(admitted, 120_000).then(() => process.hrtime.bigint())
      : null;
    const sent = process.hrtime.bigint();
    const done = streamer.begin();
    try {
      const [from, to] = await Promise.all([firstByte, firstDelta]);
      result.firstDeltaMs.push(msSince(from, to));
      if (admission) result.admissionMs.push(msSince(sent, await admission));
    } finally {
      release();
    }
    await done;
    streamer.forget();
    if (turn % options.every === 0 || turn === options.turns) {
      const sample = { turn, rssMb: rssMb(proc.pid), historyBytes: historyBytes(box) };
      result.samples.push(sample);
      options.onSample?.(sample);
    }
  }
  result.summaries = counts.summaries;
  result.calls = counts.calls;
  return result;
}

/** The median of the values of turns `from` to `to` (1-based, inclusive). */
export function medianOfTurns(values: readonly number[], from: number, to: number): number {
  const part = values.slice(from - 1, to).sort((a, b) => a - b);
  return part[Math.floor(part.length / 2)] ?? Number.NaN;
}
