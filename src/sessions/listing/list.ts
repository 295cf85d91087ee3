import { opendir } from "node:fs/promises";
import { ProtocolError } from "../../protocol/codes.js";
import { LIMITS } from "../../protocol/constants.js";
import { fillPage, utf8Length } from "../../protocol/paging.js";
import type { SessionEntry, SessionListResult } from "../../protocol/schemas/sessions.js";
import { classifyName, sessionsDir } from "../../store/layout.js";
import { isBusy } from "../../store/locks.js";
import { inspectRoot, StoreUnavailable } from "../../store/safe-open.js";
import { CwdMatcher } from "../history/cwd-rule.js";
import { validateHistory } from "../history/validate.js";
import { withPageBytesError } from "../page-bytes.js";
import type { Slicer } from "../slicer.js";
import { type VerdictCache, VerdictSession } from "../verdicts/verdict-cache.js";
import { emptyCounts, type NoticeCounts, noticesOf } from "./notices.js";

/**
 * `session.list`: one bounded snapshot, built on the first call and paged by cursor. More than
 * `discovery_sessions` candidate primaries, or one history over `history_bytes`, fails the whole
 * call with `discovery_limit`. It writes nothing.
 */
export interface ListSnapshot {
  entries: SessionEntry[];
  counts: NoticeCounts;
}

export async function buildSnapshot(
  home: string,
  canonicalCwd: string,
  slicer: Slicer,
  cache: VerdictCache | null = null,
): Promise<ListSnapshot> {
  // Before every signature the listing takes: the verdict cache's ctime margin counts from here.
  const checkedAtNs = VerdictSession.now();
  const verdicts = cache ? cache.session() : null;
  const root = sessionsDir(home);
  const ids = await candidateIds(root);
  const cwd = new CwdMatcher(canonicalCwd);
  const counts = emptyCounts();
  const entries: SessionEntry[] = [];
  // The cache's writes wait while the histories are read (verdict-writer.ts).
  const release = verdicts?.hold();
  try {
    for (const id of ids) {
      const cached = verdicts ? { session: verdicts, checkedAtNs } : undefined;
      const checked = await validateHistory(root, id, cwd, slicer, {
        maxBytes: LIMITS.history_bytes,
        ...(cached ? { cache: cached } : {}),
      });
      if (checked.kind === "over_history_limit" || checked.kind === "over_record_limit")
        throw new ProtocolError("discovery_limit");
      if (checked.kind === "invalid") counts.invalid += 1;
      if (checked.kind !== "eligible") continue;
      if (checked.summary.oversize) throw new ProtocolError("discovery_page_bytes");
      const entry = checked.summary.entry(id, isBusy(root, id));
      if (entry.cwd === "unverified") counts.unverified += 1;
      entries.push(entry);
    }
  } finally {
    release?.(true);
  }
  entries.sort(newestFirst);
  await verdicts?.finish();
  return { entries, counts };
}

/** The primary-named entries (any file type), at most `discovery_sessions` of them. */
async function candidateIds(root: string): Promise<string[]> {
  if (inspectRoot(root) === "missing") return [];
  let dir: Awaited<ReturnType<typeof opendir>>;
  try {
    dir = await opendir(root);
  } catch {
    throw new StoreUnavailable();
  }
  const ids: string[] = [];
  try {
    for await (const dirent of dir) {
      const kind = classifyName(dirent.name);
      if (kind.kind !== "primary") continue;
      if (ids.length >= LIMITS.discovery_sessions) throw new ProtocolError("discovery_limit");
      ids.push(kind.id);
    }
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw new StoreUnavailable();
  }
  return ids;
}

/** Most recently updated first; histories without a time last; then by ID. */
function newestFirst(a: SessionEntry, b: SessionEntry): number {
  const left = a.updated_at ?? "";
  const right = b.updated_at ?? "";
  if (left !== right) return left < right ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Bytes of a list result with no entries and the longest cursor. */
function envelopeBytes(snapshot: ListSnapshot): number {
  const empty: SessionListResult = {
    sessions: [],
    notices: noticesOf(snapshot.counts),
    cursor: "x".repeat(64),
    complete: false,
  };
  return utf8Length(JSON.stringify(empty));
}

/** One page of the snapshot from `offset`; `next` is the offset to continue at, or null. */
export function listPage(
  snapshot: ListSnapshot,
  offset: number,
): { sessions: SessionEntry[]; next: number | null } {
  const page = withPageBytesError(() =>
    fillPage(snapshot.entries.slice(offset), envelopeBytes(snapshot), {
      entries: LIMITS.page_entries,
      bytes: LIMITS.page_bytes,
    }),
  );
  const next = offset + page.items.length;
  return { sessions: page.items, next: next < snapshot.entries.length ? next : null };
}
