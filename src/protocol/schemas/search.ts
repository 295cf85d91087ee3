import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { Cursor, IsoTime, SessionId } from "./common.js";

/**
 * `session.search` (capability `session.search`, docs/protocol.md): case-insensitive text
 * search over this workspace's validated sessions, in pages like session.discover. The query is
 * 1..256 characters; a snippet at most 200 (sessions/search/search-text.ts holds both bounds).
 */
export const SessionSearchParams = lazy(() =>
  z.strictObject({
    query: z.string().min(1).max(256),
    cursor: Cursor().optional(),
    /** Search the archived sessions (`sessions/archive/`) instead of the live ones. */
    archived: z.boolean().optional(),
  }),
);

export const SearchHit = lazy(() =>
  z.strictObject({
    id: SessionId(),
    title: z.string().nullable(),
    updated_at: IsoTime().nullable(),
    /** The record's index among session.history's events of that session, from 0. */
    record_index: z.number().int().nonnegative(),
    snippet: z.string().max(200),
  }),
);

export const SessionSearchResult = lazy(() =>
  z.strictObject({
    hits: z.array(SearchHit()),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
  }),
);

export type SessionSearchResult = Infer<typeof SessionSearchResult>;
