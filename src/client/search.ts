import type { ResultOf } from "../protocol/methods.js";
import type { Caller } from "./caller.js";
import type { CallOptions } from "./connection.js";
import { RemoteError } from "./errors.js";

export type SearchHit = ResultOf<"session.search">["hits"][number];

/** Fresh searches one `stale_revision` restarts before giving up (a store in flux). */
export const SEARCH_RESTARTS = 3;

export interface SearchOptions extends CallOptions {
  /** Search the archived sessions instead of the live ones. */
  archived?: boolean;
  /** Called when the store changed under the search and it starts again without a cursor. */
  onRestart?: () => void;
}

/**
 * Every hit of `session.search` for `query`, page by page as the backend answers them. A
 * search the store changed under (`stale_revision`) starts again from the beginning, at most
 * SEARCH_RESTARTS times, and hands out only hits it has not handed out before (a hit is its
 * session and record index), so a caller printing pages as they come never prints one twice.
 * Aborting `signal` cancels the page in flight (`operation.cancel`): the backend's
 * `operation_cancelled` is thrown.
 */
export async function* searchSessions(
  client: Caller,
  query: string,
  options: SearchOptions = {},
): AsyncGenerator<SearchHit[]> {
  const { archived, onRestart, ...call } = options;
  const seen = new Set<string>();
  for (let attempt = 0; ; attempt += 1) {
    let cursor: string | undefined;
    try {
      for (;;) {
        const params = { query, ...(cursor ? { cursor } : {}), ...(archived ? { archived } : {}) };
        const page = await client.call("session.search", params, call);
        const fresh = page.hits.filter((hit) => {
          const key = `${hit.id}\u0000${hit.record_index}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
        if (fresh.length > 0) yield fresh;
        if (page.complete || page.cursor === null) return;
        cursor = page.cursor;
      }
    } catch (error) {
      const stale = error instanceof RemoteError && error.code === "stale_revision";
      if (!stale || attempt >= SEARCH_RESTARTS) throw error;
      onRestart?.();
    }
  }
}
