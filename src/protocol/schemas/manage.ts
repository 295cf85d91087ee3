import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { SessionId } from "./common.js";
import { SessionDiscoverResult, SessionEntry } from "./sessions.js";
import { CostUsd, Usage } from "./turns.js";

/**
 * Capability `session.manage` (docs/local-agent-protocol.md, "Managing sessions"): rename,
 * archive, unarchive, archived, delete and usage of this workspace's saved sessions.
 */

/** A title's bound, in Unicode code points. */
export const TITLE_CHARS = 200;

/** One line, 1..200 code points, not blank, no control character (C0, DEL, C1, U+2028/9). */
export function isTitle(title: string): boolean {
  const chars = [...title].length;
  return (
    chars >= 1 &&
    chars <= TITLE_CHARS &&
    title.trim().length > 0 &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are refused
    !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(title)
  );
}

export const SessionTitle = lazy(() =>
  z.string().refine(isTitle, {
    message: "A title is one line of 1 to 200 characters, not blank.",
  }),
);

/**
 * One session by ID. Each method has its own instance: a schema shared by several methods
 * becomes one def and aliases, and code generators name such a fold after its last alias.
 */
const sessionIdParams = () => z.strictObject({ id: SessionId() });
export const SessionArchiveParams = lazy(sessionIdParams);
export const SessionUnarchiveParams = lazy(sessionIdParams);
export const SessionDeleteParams = lazy(sessionIdParams);
export const SessionUsageParams = lazy(sessionIdParams);

export const SessionRenameParams = lazy(() =>
  z.strictObject({ id: SessionId(), title: SessionTitle() }),
);
/** The session as listings now show it (its new title, `updated_at` the title record's). */
export const SessionRenameResult = lazy(() => z.strictObject({ session: SessionEntry() }));

/** session.archive and session.unarchive: where the session is now (one instance each, above). */
const sessionPlace = () => z.strictObject({ id: SessionId(), archived: z.boolean() });
export const SessionArchiveResult = lazy(sessionPlace);
export const SessionUnarchiveResult = lazy(sessionPlace);

/** session.archived pages exactly as session.discover does, over `sessions/archive/`. */
export const SessionArchivedResult = SessionDiscoverResult;

export const SessionDeleteResult = lazy(() =>
  z.strictObject({ id: SessionId(), deleted: z.literal(true) }),
);

export const SessionUsageResult = lazy(() =>
  z.strictObject({
    id: SessionId(),
    /** Turns with a `turn_end` record. */
    turns: z.number().int().min(0),
    /** The sum of every ended turn's tokens. */
    usage: Usage(),
    /** The sum of the turns whose cost is known. */
    cost_usd: CostUsd(),
    /** Turns whose cost is unknown (no price, or recorded before costs were). */
    unknown_cost_turns: z.number().int().min(0),
    /** True when some turn's cost is unknown: `cost_usd` is then a lower bound. */
    partial: z.boolean(),
    archived: z.boolean(),
  }),
);

export type SessionUsageResult = Infer<typeof SessionUsageResult>;
