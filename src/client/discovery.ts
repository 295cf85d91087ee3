import type {
  DiscoveryProgress,
  SessionEntry,
  SessionNotice,
} from "../protocol/schemas/sessions.js";
import type { RestartableCaller } from "./caller.js";
import { ClientError, isRemote } from "./errors.js";
import { followCursor, withCursor } from "./pager.js";

/** What a progress display may show while discovery runs. Never the result. */
export type DiscoveryEvent =
  | {
      kind: "page";
      /** The page's `progress` value (why the child yielded). */
      progress: DiscoveryProgress;
      /** Pages read in this attempt, empty progress pages included. */
      pages: number;
      /** Rows so far in this attempt: provisional until completion, possibly discarded. */
      provisional: readonly SessionEntry[];
      attempt: number;
    }
  | {
      kind: "restart";
      /** Why everything read so far was discarded. */
      reason: "stale_revision" | "child_exhausted";
      attempt: number;
    };

export interface DiscoveryOptions {
  signal?: AbortSignal;
  onProgress?: (event: DiscoveryEvent) => void;
  /** Fresh scans after `stale_revision` before giving up (default 3). */
  maxStaleRetries?: number;
  /** New children after `child_exhausted` before giving up (default 2). */
  maxChildRestarts?: number;
}

/** A validated, complete inventory: only ever built from a scan that ended `complete=true`. */
export interface DiscoveryResult {
  sessions: SessionEntry[];
  notices: SessionNotice[];
  /** Scans started (1 when nothing had to be restarted). */
  attempts: number;
  /** Children replaced because the old one was exhausted. */
  childRestarts: number;
}

type ScanOutcome =
  | { kind: "complete"; sessions: SessionEntry[]; notices: SessionNotice[] }
  | { kind: "restart"; reason: "stale_revision" | "child_exhausted" };

/**
 * Client flow step 2: follows the single-use cursor chain of `session.discover`, through empty
 * progress pages, until validated completion. A stale scan is discarded and started again
 * deliberately; an exhausted child is replaced and the scan started again in the new one.
 */
export async function discoverSessions(
  client: RestartableCaller,
  options: DiscoveryOptions,
): Promise<DiscoveryResult> {
  const maxStale = options.maxStaleRetries ?? 3;
  const maxRestarts = options.maxChildRestarts ?? 2;
  let stale = 0;
  let childRestarts = 0;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await scanOnce(client, attempt, options);
    if (outcome.kind === "complete")
      return {
        sessions: outcome.sessions,
        notices: outcome.notices,
        attempts: attempt,
        childRestarts,
      };
    if (outcome.reason === "stale_revision" && ++stale > maxStale)
      throw new ClientError(
        "discovery_unstable",
        `The session store kept changing during ${stale} scans; try again when it is quiet.`,
      );
    if (outcome.reason === "child_exhausted") {
      if (++childRestarts > maxRestarts)
        throw new ClientError("restart_limit", `Discovery exhausted ${childRestarts} children.`);
      await client.restart();
    }
    options.onProgress?.({ kind: "restart", reason: outcome.reason, attempt });
  }
}

async function scanOnce(
  client: RestartableCaller,
  attempt: number,
  options: DiscoveryOptions,
): Promise<ScanOutcome> {
  const rows: SessionEntry[] = [];
  const signal = options.signal ? { signal: options.signal } : {};
  let pages = 0;
  try {
    const chain = followCursor(
      (cursor) => client.call("session.discover", withCursor({}, cursor), signal),
      "discovery",
    );
    for await (const page of chain) {
      pages += 1;
      rows.push(...page.sessions);
      options.onProgress?.({
        kind: "page",
        progress: page.progress,
        pages,
        provisional: Object.freeze([...rows]),
        attempt,
      });
      // Notices carry running totals; the completing page's are the scan's totals.
      if (page.complete) return { kind: "complete", sessions: rows, notices: page.notices };
    }
  } catch (error) {
    if (isRemote(error, "stale_revision")) return { kind: "restart", reason: "stale_revision" };
    if (isRemote(error, "child_exhausted")) return { kind: "restart", reason: "child_exhausted" };
    throw error;
  }
  throw new ClientError("protocol_violation", "A discovery scan ended without completing.");
}
