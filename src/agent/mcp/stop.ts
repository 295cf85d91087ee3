/**
 * How a stdio server is stopped (docs/mcp.md, "Lifecycle"): its stdin is closed (a well-behaved
 * server exits at EOF), then SIGTERM, then SIGKILL, all within the child's cleanup bound
 * (`limits.cleanup_ms`, 2000 ms: the shutdown's drain leaves 150 ms of it for the exit).
 */
export const STOP_TERM_MS = 500;
export const STOP_KILL_MS = 1000;
/** After SIGKILL, how long the close waits to see the exit (SIGKILL cannot be held off). */
const KILL_SETTLE_MS = 300;

/**
 * Signals `pid` on schedule unless `exited` settles first; resolves once it has, or shortly
 * after the SIGKILL. `closeInput` ends the server's stdin at once.
 */
export async function stopProcess(
  pid: number | null,
  exited: Promise<void>,
  closeInput: () => void,
): Promise<void> {
  let done = false;
  void exited.then(() => {
    done = true;
  });
  closeInput();
  if (pid === null) return;
  const signal = (name: NodeJS.Signals) => () => {
    if (done) return; // the pid may already belong to another process
    try {
      process.kill(pid, name);
    } catch {}
  };
  const term = setTimeout(signal("SIGTERM"), STOP_TERM_MS);
  const kill = setTimeout(signal("SIGKILL"), STOP_KILL_MS);
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([
    exited,
    new Promise<void>((resolve) => {
      bound = setTimeout(resolve, STOP_KILL_MS + KILL_SETTLE_MS);
    }),
  ]);
  clearTimeout(term);
  clearTimeout(kill);
  clearTimeout(bound);
}
