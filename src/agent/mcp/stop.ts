import { groupRuns, signalGroup, waitGroupGone } from "../tools/process-group.js";

/**
 * How a stdio server is stopped (docs/mcp.md, "Lifecycle"): its stdin is closed (a well-behaved
 * server exits at EOF), then its process group gets SIGTERM, then SIGKILL, all within the child's
 * cleanup bound (`limits.cleanup_ms`, 2000 ms: the shutdown's drain leaves 150 ms of it for the
 * exit). The group, not the pid: a server started through a wrapper (`npx`, `sh -c`) is a
 * grandchild, which a signal to the wrapper alone would leave running.
 */
const STOP_TERM_MS = 500;
const STOP_KILL_MS = 1000;
/** After SIGKILL, how long the close waits to see the group gone (SIGKILL cannot be held off). */
const KILL_SETTLE_MS = 300;

/**
 * Signals group `pgid` on schedule while any process of it runs; resolves once the server's
 * connection closed (`exited`) and nothing of the group runs any more, or shortly after the
 * SIGKILL. `closeInput` ends the server's stdin at once.
 */
export async function stopProcess(
  pgid: number | null,
  exited: Promise<void>,
  closeInput: () => void,
): Promise<void> {
  closeInput();
  if (pgid === null) return;
  const started = Date.now();
  // A group none of whose processes runs is not signalled: its id may be reused once it is empty.
  const signal = (name: NodeJS.Signals) => () => {
    if (groupRuns(pgid)) signalGroup(pgid, name);
  };
  const term = setTimeout(signal("SIGTERM"), STOP_TERM_MS);
  const kill = setTimeout(signal("SIGKILL"), STOP_KILL_MS);
  const limit = STOP_KILL_MS + KILL_SETTLE_MS;
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([
    exited,
    new Promise<void>((resolve) => {
      bound = setTimeout(resolve, limit);
    }),
  ]);
  clearTimeout(bound);
  // The leader's pipes closed; a process of the group that closed its own (`cmd >/dev/null &`)
  // may still run, and gets the signals above.
  await waitGroupGone(pgid, Math.max(0, limit - (Date.now() - started)));
  clearTimeout(term);
  clearTimeout(kill);
}
