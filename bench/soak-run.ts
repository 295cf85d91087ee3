import { loadavg } from "node:os";
import type { Frame } from "../src/conformance/frame.js";
import { acpStreamer } from "./acp-streamer.js";
import { sdkStreamer } from "./sdk-streamer.js";
import { medianOfTurns, type SoakStreamer, soak, TOKENS_PER_TURN } from "./soak.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { startBenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * `node dist/bench/soak-run.js [turns=1000] [every=50] [compactions=5] [stdio|acp|sdk]`: the
 * long-session soak through one side, printing every sample as it goes (bench/soak.ts). The issue's
 * rows come from bench/soak.bench.ts; this is the quick look while finding what grows. With
 * `sdk` and MC_BENCH_SDK_LAG=1 it also prints the SDK's own share of the admission and the first delta.
 */
const turns = Number(process.argv[2] ?? 1000);
const every = Number(process.argv[3] ?? 50);
const compactions = Number(process.argv[4] ?? 5);
const side = process.argv[5] ?? "stdio";

const isTurnStarted = (f: Frame) =>
  (f as { method?: string; params?: { event?: { type?: string } } }).method === "turn.event" &&
  (f as { params?: { event?: { type?: string } } }).params?.event?.type === "turn_started";

const server = await startBenchServer();
const child = await childStreamer(CHAT_COMPLETIONS, server, {
  contextWindow: Math.round((turns / (compactions + 1)) * TOKENS_PER_TURN),
  permissions: "full_access",
  timeoutMs: 120_000,
});
// ACP and the SDK: the same store and model, on a session of their own (the stdio one stays
// empty).
let streamer: SoakStreamer & { close(): Promise<void> } = child;
let sdkLag: { admission: number[]; firstDelta: number[] } | undefined;
if (side === "acp") {
  await child.proc.close();
  streamer = await acpStreamer(CHAT_COMPLETIONS, child.box, { mode: "full_access" });
} else if (side === "sdk") {
  await child.proc.close();
  const sdk = await sdkStreamer(CHAT_COMPLETIONS, child.box, {
    permissions: "full_access",
    timeoutMs: 120_000,
    lag: process.env.MC_BENCH_SDK_LAG === "1",
  });
  if (process.env.MC_BENCH_SDK_LAG === "1") sdkLag = sdk.lagMs;
  streamer = sdk;
}
try {
  const result = await soak(server, streamer, child.box, {
    turns,
    every,
    ...(side === "acp" ? {} : { admitted: isTurnStarted }),
    onSample: (s) =>
      console.log(
        `turn ${s.turn}: RSS ${s.rssMb.toFixed(1)} MB, history ${(s.historyBytes / 1024).toFixed(0)} KiB, load ${(loadavg()[0] ?? 0).toFixed(1)}`,
      ),
  });
  const window = (values: number[], from: number) => medianOfTurns(values, from, from + every - 1);
  const last = turns - every + 1;
  console.log(
    `admission p50 turns 51-..: ${window(result.admissionMs, every + 1).toFixed(2)} ms, last ${every}: ${window(result.admissionMs, last).toFixed(2)} ms`,
  );
  console.log(
    `first delta p50 turns 51-..: ${window(result.firstDeltaMs, every + 1).toFixed(2)} ms, last ${every}: ${window(result.firstDeltaMs, last).toFixed(2)} ms`,
  );
  if (sdkLag)
    for (const [what, lag] of Object.entries(sdkLag))
      console.log(
        `SDK's share of ${what} (its raw line read to its event handed over) p50 turns 51-..: ${window(lag, every + 1).toFixed(3)} ms, last ${every}: ${window(lag, last).toFixed(3)} ms`,
      );
  console.log(
    `summaries ${result.summaries}, calls ${result.calls}, load ${(loadavg()[0] ?? 0).toFixed(1)}`,
  );
} finally {
  if (streamer !== child) await streamer.close();
  await child.close();
  await server.close();
}
