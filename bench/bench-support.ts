import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Shared helpers of the session benchmarks (not a bench module itself). */
const here = dirname(fileURLToPath(import.meta.url));

export interface ProbeResult {
  bytes: number;
  records: number;
  ms: number;
  /** The probe's CPU time for the work (user + system). */
  cpu_ms: number;
  rss_mb: number;
}

/**
 * CPU time of a running process (Linux), in ms: its main thread's, and all its threads' together
 * (the thread pool's file work included), from /proc's schedstat; NaN elsewhere.
 */
export function processCpuMs(pid: number | undefined): { main: number; all: number } {
  try {
    let all = 0;
    let main = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        const ns = Number(
          readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0],
        );
        all += ns / 1e6;
        if (task === String(pid)) main = ns / 1e6;
      } catch {
        // A thread that ended meanwhile.
      }
    }
    // A thread that has ended (a split open's worker, split-scan.ts) is in no task's schedstat
    // any more, but still in the process's own utime + stime (clock ticks, 10 ms here): the
    // larger of the two, so that its time is counted.
    return { main, all: Math.max(all, processTicksMs(pid)) };
  } catch {
    return { main: Number.NaN, all: Number.NaN };
  }
}

/** utime + stime of /proc/<pid>/stat, every thread's that ever ran, in ms (100 ticks a second). */
function processTicksMs(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs bench/sessions-probe in its own process (its own peak RSS). */
export function probe(...args: string[]): ProbeResult {
  const out = execFileSync(process.execPath, [join(here, "sessions-probe.js"), ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out) as ProbeResult;
}

/** Scheduling noise of a CPU-busy, 2 ms-sliced process on this machine right now. */
export function schedulingNoise(durationMs: number): { p50: number; p99: number } {
  const out = execFileSync(
    process.execPath,
    [join(here, "sessions-probe.js"), "slices", String(durationMs)],
    {
      encoding: "utf8",
    },
  );
  return JSON.parse(out) as { p50: number; p99: number };
}

export function mbPerSecond(result: ProbeResult): number {
  return result.bytes / (1024 * 1024) / (result.ms / 1000);
}

/** A temp folder for generated stores, always removed (the big files are never kept). */
export async function withTempDir<T>(
  prefix: string,
  body: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Peak resident set of a running process (Linux), in MB; NaN elsewhere. */
export function peakRssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
