import { openSync, readSync, writeFileSync } from "node:fs";

/**
 * A preload for the bench's children (`NODE_OPTIONS=--import=<this file>`, MC_BENCH_LOOP_HELD
 * naming the output file): every 1 ms timer tick records the wall clock (Date.now) and the main
 * thread's CPU time since the previous tick, from /proc/self/task/<pid>/schedstat. A tick's CPU
 * time is how long the event loop was held between two turns in the thread's own time, which a
 * loaded machine does not stretch as it stretches wall-clock round trips (bench/discover-ab.ts).
 * Written at exit as `[[wall ms, cpu ms], ...]`. Linux only; elsewhere it records nothing.
 */
const out = process.env.MC_BENCH_LOOP_HELD;
if (out && process.env.MC_BENCH_LOOP_HELD_ON !== "1") {
  // Worker threads see the same environment: only the main thread records.
  process.env.MC_BENCH_LOOP_HELD_ON = "1";
  try {
    const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, "r");
    const buffer = Buffer.alloc(128);
    const cpuNs = () =>
      Number(buffer.toString("latin1", 0, readSync(fd, buffer, 0, 128, 0)).split(" ")[0]);
    const ticks: [number, number][] = [];
    let last = cpuNs();
    const tick = () => {
      const now = cpuNs();
      ticks.push([Date.now(), (now - last) / 1e6]);
      last = now;
      setTimeout(tick, 1).unref();
    };
    setTimeout(tick, 1).unref();
    process.on("exit", () => writeFileSync(out, JSON.stringify(ticks)));
  } catch {
    // No schedstat: nothing recorded.
  }
}
