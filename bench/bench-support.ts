import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Shared helpers of the session benchmarks (not a bench module itself). */
const here = dirname(fileURLToPath(import.meta.url));

export interface ProbeResult {
  bytes: number;
  records: number;
  ms: number;
  rss_mb: number;
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
