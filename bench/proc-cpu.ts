import { readFileSync } from "node:fs";

/**
 * The CPU time (user + system, ms; its threads and any child it waited for) a process has used
 * so far, from /proc (ticks of 10 ms): the work of a start, apart from the time it waited for a
 * core on a busy machine. NaN where /proc has none (or the process is gone).
 */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks * 10;
  } catch {
    return Number.NaN;
  }
}
