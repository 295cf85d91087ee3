import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { SessionId } from "./common.js";
import { SessionEntry } from "./sessions.js";
import { TURN_ID_PATTERN } from "./turns.js";

/**
 * `session.fork` (capability `session.fork`, docs/local-agent-protocol.md "session.fork"): a new
 * saved session whose history is the source's up to and including one turn, or whole.
 */
export const SessionForkParams = lazy(() =>
  z.strictObject({
    id: SessionId(),
    /** The last turn the fork keeps; absent: the whole history. */
    turn_id: z.string().regex(TURN_ID_PATTERN).optional(),
  }),
);

/** What a fork's `session_meta` record and its result name: the source and the cut. */
export const ForkedFrom = lazy(() =>
  z.strictObject({
    id: SessionId(),
    /** The turn the fork was cut after; null for a fork of the whole history. */
    turn_id: z.string().regex(TURN_ID_PATTERN).nullable(),
  }),
);

export const SessionForkResult = lazy(() =>
  z.strictObject({
    /** The new session, saved and attached in this child (as `session.open` would). */
    session: SessionEntry(),
    forked_from: ForkedFrom(),
    /** How many of the source's turns the fork holds. */
    turns: z.number().int().min(0),
  }),
);

export type ForkedFrom = Infer<typeof ForkedFrom>;
export type SessionForkResult = Infer<typeof SessionForkResult>;
