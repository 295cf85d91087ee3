import { ProtocolError } from "../../protocol/codes.js";
import type { SessionDiscoverResult } from "../../protocol/schemas/sessions.js";
import { DiscoveryScan } from "../../sessions/listing/discover.js";
import { noticesOf } from "../../sessions/listing/notices.js";
import type { Clock } from "../../sessions/slicer.js";
import type { VerdictCache } from "../../sessions/verdicts/verdict-cache.js";
import { StoreUnavailable } from "../../store/safe-open.js";
import { CursorStore } from "../cursors.js";
import type { Handler } from "../handler.js";
import type { ServerState } from "../state.js";

/**
 * session.discover: one child-owned scan at a time. Each scan gets its own cursor store (one
 * live cursor, prefixed with the scan's serial), so that a cursor not live is recognised as an
 * earlier cursor of the current scan, which invalidates it for good; a fresh request (no
 * cursor) abandons the prior scan; any error or cancellation abandons the scan too.
 */
export interface DiscoveryOptions {
  /** The scans' clock (default: the real one); a test injects a virtual clock. */
  clock?: Clock;
  /** The child's verdict cache (sessions/verdicts/); none: every scan reads everything. */
  verdicts?: VerdictCache | null;
  /**
   * The folder scanned instead of `sessions/` (session.archived: `sessions/archive/`, without a
   * verdict cache, whose files are named by ID for the active folder only).
   */
  root?: string;
  /** The cursors' first letter (`d`; session.archived's `a`), so that one never resumes the other. */
  prefix?: string;
}

export function discoveryHandler(
  state: ServerState,
  options: DiscoveryOptions = {},
): Handler<"session.discover" | "session.archived"> {
  const prefix = options.prefix ?? "d";
  let serial = 0;
  let scan: DiscoveryScan | null = null;
  let cursors = new CursorStore<DiscoveryScan>(`${prefix}0`, 1);

  const abandon = (which: DiscoveryScan | null = scan) => {
    if (which === null || which !== scan) return;
    scan.close();
    scan = null;
    cursors.clear();
  };

  const resume = (cursor: string): DiscoveryScan => {
    const taken = cursors.take(cursor);
    if (taken && taken === scan) return taken;
    // An earlier cursor of the current scan: the scan is invalid from now on (sticky).
    if (cursor.startsWith(`${prefix}${serial}.`)) abandon();
    throw new ProtocolError("stale_revision");
  };

  const begin = (): DiscoveryScan => {
    abandon();
    serial += 1;
    cursors = new CursorStore<DiscoveryScan>(`${prefix}${serial}`, 1);
    const probe = () => state.attachment;
    const root = options.root;
    const cache = options.verdicts ?? null;
    scan = new DiscoveryScan(state.home, state.cwd, probe, options.clock, cache, root);
    return scan;
  };

  return async (params, ctx) => {
    let current: DiscoveryScan | null = null;
    try {
      current = params.cursor === undefined ? begin() : resume(params.cursor);
      const step = await current.step(ctx.signal);
      if (ctx.signal.aborted) throw new ProtocolError("operation_cancelled");
      const complete = step.progress === "complete";
      if (complete) await current.verdicts?.finish();
      else await current.verdicts?.settle();
      if (complete) abandon(current);
      const result: SessionDiscoverResult = {
        sessions: step.sessions,
        notices: noticesOf(step.counts),
        cursor: complete ? null : cursors.issue(current),
        complete,
        consistency: "provisional_until_complete",
        progress: step.progress,
        recovery: complete ? "none" : "continue_cursor",
      };
      return result;
    } catch (error) {
      abandon(current);
      if (error instanceof StoreUnavailable) throw new ProtocolError("discovery_unavailable");
      throw error;
    }
  };
}
