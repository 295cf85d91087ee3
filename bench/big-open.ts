import { readdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Frame } from "../src/conformance/frame.js";
import { nextId, type Sandbox } from "../src/conformance/harness.js";
import { startReady } from "../test/helpers/child.js";
import { TURN_CAPS } from "../test/turns/turn-harness.js";
import { peakRssMb, processCpuMs } from "./bench-support.js";
import { soak } from "./soak.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import type { BenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * What the big-history bench (big-history.bench.ts) and its A/B against other builds
 * (big-open-ab.ts) both measure: a template history to copy from, and a fresh child's
 * `session.open` with its first `turn.start` to `turn_started`.
 */

/** One open and admission: ms from the open, the child's CPU over it, its peak RSS. */
export interface OpenSide {
  ms: number;
  /** CPU time over the same span: less swayed by load than the wall (a shared core inflates it). */
  cpu: number;
  rss: number;
}

const isTurnStarted = (frame: Frame) =>
  (frame as { params?: { event?: { type?: string } } }).params?.event?.type === "turn_started";

/** A real short session's history, compacting, to copy from (bench/soak.ts). */
export async function templateHistory(server: BenchServer, box: Sandbox): Promise<string> {
  const child = await childStreamer(CHAT_COMPLETIONS, server, {
    contextWindow: 6000,
    permissions: "full_access",
    box,
  });
  try {
    await soak(server, child, box, { turns: 24, every: 24 });
  } finally {
    await child.close();
  }
  const folder = join(box.home, "sessions");
  const [name] = readdirSync(folder).filter((file) => file.endsWith(".jsonl"));
  if (!name) throw new Error("the template session wrote no history");
  return join(folder, name);
}

/**
 * One fresh child (this build's, or the launcher `bin` of another): session.open then
 * turn.start to turn_started; ms from open, the child's CPU time over them (all its threads:
 * V8's collector's helpers too), peak RSS. The turn must complete.
 *
 * Timed from a child that has started: a `status` answered first. The starter answers the
 * `initialize` before the rest of the child has loaded (src/boot/starter.ts), so an open sent
 * right behind that answer waited 40 ms or so for the child's own load, which the start-up bench
 * measures, and which neither the bare parse (timed inside its process) nor Codex (whose
 * `initialize` is answered by the loaded app-server) has in its figure.
 */
export async function openAndAdmit(box: Sandbox, id: string, bin?: string): Promise<OpenSide> {
  const child = await startReady(box, TURN_CAPS, {
    env: CHAT_COMPLETIONS.keyEnv,
    ...(bin ? { command: [process.execPath, bin, "stdio"] } : {}),
  });
  try {
    await child.call("status", {});
    const cpuBefore = processCpuMs(child.pid).all;
    const started = performance.now();
    await child.call("session.open", { id }, 600_000);
    const turnId = nextId("turn");
    const admitted = child.waitFor(isTurnStarted, 600_000);
    const done = child.waitFor((f) => f.id === turnId, 600_000);
    child.send({ id: turnId, method: "turn.start", params: { input: "Go on." } });
    await admitted;
    const ms = performance.now() - started;
    const cpu = processCpuMs(child.pid).all - cpuBefore;
    const result = (await done) as { result?: { status?: string }; error?: unknown };
    if (result.result?.status !== "completed")
      throw new Error(`the turn did not complete: ${JSON.stringify(result.error ?? result)}`);
    return { ms, cpu, rss: peakRssMb(child.pid) };
  } finally {
    await child.close();
  }
}
