/**
 * SIGTERM, SIGINT and SIGHUP stop `mc-agent stdio` and `mc-agent acp` as a shutdown does
 * (issue 35; docs/turns.md section 7, docs/acp.md): editors stop agents with SIGTERM (Neovim's
 * `jobstop`), and Node's default for these signals is to die at once, which left a running
 * command's process group, every MCP server, a history without its `turn_end` and the session's
 * lock behind. Once one came, the child's own cleanup decides the end: every further stop signal
 * is ignored (the cleanup is bounded by `cleanup_ms` anyway), and the exit status is 0 when the
 * cleanup finished within the bound, else 128 + the signal's number, as a shell reports it.
 */
import { constants } from "node:os";

const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Calls `stop` once, at the first stop signal; the listeners stay, so later ones are ignored. */
export function onStopSignal(stop: (signal: StopSignal) => void): void {
  let seen = false;
  for (const name of STOP_SIGNALS) {
    process.on(name, () => {
      if (seen) return;
      seen = true;
      stop(name);
    });
  }
}

/** The exit status after a stop by `signal`: 0 when the cleanup finished in time. */
export function stopExitCode(signal: StopSignal | null, cleanupFinished: boolean): number {
  if (signal === null || cleanupFinished) return 0;
  return 128 + constants.signals[signal];
}
