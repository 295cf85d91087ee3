import { ProtocolError } from "../../protocol/codes.js";
import type { SessionSearchResult } from "../../protocol/schemas/search.js";
import { SearchIndexWriter } from "../../sessions/search/search-index-writer.js";
import { SearchScan } from "../../sessions/search/search-scan.js";
import type { VerdictCache } from "../../sessions/verdicts/verdict-cache.js";
import { StoreUnavailable } from "../../store/safe-open.js";
import { CursorStore } from "../cursors.js";
import type { Handler } from "../handler.js";
import type { ServerState } from "../state.js";

/**
 * session.search: one search at a time, as session.discover has one scan (discovery.ts): a
 * fresh request abandons the prior search; an earlier cursor of the current search invalidates
 * it (stale_revision); an error or a cancellation abandons it.
 */
export function searchHandler(
  state: ServerState,
  verdicts: VerdictCache | null,
): Handler<"session.search"> {
  const writer = new SearchIndexWriter();
  // At shutdown the queued index entries are dropped: writing them would hold the exit.
  state.closers.push(() => writer.stop());
  let serial = 0;
  let scan: SearchScan | null = null;
  let cursors = new CursorStore<SearchScan>("q0", 1);

  const abandon = (which: SearchScan | null = scan) => {
    if (which === null || which !== scan) return;
    scan.close();
    scan = null;
    cursors.clear();
  };

  const resume = (cursor: string): SearchScan => {
    const taken = cursors.take(cursor);
    if (taken && taken === scan) return taken;
    if (cursor.startsWith(`q${serial}.`)) abandon();
    throw new ProtocolError("stale_revision");
  };

  const begin = (query: string, archived: boolean): SearchScan => {
    abandon();
    serial += 1;
    cursors = new CursorStore<SearchScan>(`q${serial}`, 1);
    const cacheFolder = verdicts?.folder() ?? null;
    const index = cacheFolder ? { cacheFolder, writer } : null;
    scan = new SearchScan(state.home, state.cwd, query, archived, index);
    return scan;
  };

  return async (params, ctx) => {
    let current: SearchScan | null = null;
    try {
      current =
        params.cursor === undefined
          ? begin(params.query, params.archived ?? false)
          : resume(params.cursor);
      const step = await current.step(ctx.signal);
      if (ctx.signal.aborted) throw new ProtocolError("operation_cancelled");
      if (step.complete) abandon(current);
      const result: SessionSearchResult = {
        hits: step.hits,
        cursor: step.complete ? null : cursors.issue(current),
        complete: step.complete,
      };
      return result;
    } catch (error) {
      abandon(current);
      if (error instanceof StoreUnavailable) throw new ProtocolError("discovery_unavailable");
      throw error;
    }
  };
}
