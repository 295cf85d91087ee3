import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { Cursor, SessionId } from "./common.js";
import { SessionEvent } from "./sessions.js";
import { TURN_ID_PATTERN } from "./turns.js";

/**
 * `session.subagent_history` (capability `subagents`, docs/turns.md "Subagents"): a subagent's
 * derived history `sessions/<id>.<subagent_id>.jsonl`, paged as `session.history` pages a
 * session's.
 */
export const SessionSubagentHistoryParams = lazy(() =>
  z.strictObject({
    /** The parent session. */
    id: SessionId(),
    /** The subagent: its `agent` call's item ID (`subagent_event.subagent_id`). */
    subagent_id: z.string().regex(TURN_ID_PATTERN),
    cursor: Cursor().optional(),
  }),
);

/** As `session.history`'s result: the records as stored, in file order. */
export const SessionSubagentHistoryResult = lazy(() =>
  z.strictObject({
    events: z.array(SessionEvent()),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
  }),
);

export type SessionSubagentHistoryParams = Infer<typeof SessionSubagentHistoryParams>;
export type SessionSubagentHistoryResult = Infer<typeof SessionSubagentHistoryResult>;
