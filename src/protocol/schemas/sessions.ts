import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { Cursor, CursorParams, IsoTime, SessionId } from "./common.js";
import { TURN_ID_PATTERN } from "./turns.js";

/** One history record. Unknown `type`s and extra fields are valid and kept. */
export const SessionEvent = lazy(() =>
  z.looseObject({
    type: z.string(),
    ts: z.string(),
    cwd: z.string().optional(),
  }),
);

export const SessionEntry = lazy(() =>
  z.strictObject({
    id: SessionId(),
    title: z.string().nullable(),
    created_at: IsoTime().nullable(),
    updated_at: IsoTime().nullable(),
    busy: z.boolean(),
    cwd: z.enum(["verified", "unverified"]),
    open: z.literal("exact"),
  }),
);

export const SessionNotice = lazy(() =>
  z.strictObject({
    code: z.enum(["cwd_unverified", "sessions_omitted_invalid"]),
    count: z.number().int().min(1),
  }),
);

export const SessionListParams = CursorParams;
export const SessionListResult = lazy(() =>
  z.strictObject({
    sessions: z.array(SessionEntry()),
    notices: z.array(SessionNotice()),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
  }),
);

export const DISCOVERY_PROGRESS = [
  "directory_work",
  "history_work",
  "record_work",
  "byte_work",
  "inventory_validation",
  "deadline",
  "page_entries",
  "page_bytes",
  "complete",
] as const;
export const DiscoveryProgress = lazy(() => z.enum(DISCOVERY_PROGRESS));

export const SessionDiscoverParams = CursorParams;
export const SessionDiscoverResult = lazy(() =>
  z.strictObject({
    sessions: z.array(SessionEntry()),
    notices: z.array(SessionNotice()),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
    consistency: z.literal("provisional_until_complete"),
    progress: DiscoveryProgress(),
    recovery: z.enum(["continue_cursor", "none"]),
  }),
);

export const SessionCreateParams = lazy(() => z.strictObject({}));
export const SessionCreateResult = lazy(() =>
  z.strictObject({
    session: z.strictObject({ id: SessionId(), saved: z.literal(false) }),
  }),
);

export const SessionOpenParams = lazy(() => z.strictObject({ id: SessionId() }));
export const SessionOpenResult = lazy(() => z.strictObject({ session: SessionEntry() }));

export const SessionHistoryParams = lazy(() =>
  z.strictObject({ id: SessionId(), cursor: Cursor().optional() }),
);
export const SessionHistoryResult = lazy(() =>
  z.strictObject({
    events: z.array(SessionEvent()),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
  }),
);

/**
 * What `session.history` sends in place of a record too large for a page: the record's `type`,
 * `ts`, `cwd` and short scalar fields, where it is (`index`) and its size; `session.record`
 * reads the record itself (docs/turns.md, "Records larger than a page").
 */
export const RecordStub = lazy(() =>
  z.looseObject({
    type: z.string(),
    ts: z.string(),
    cwd: z.string().optional(),
    oversize: z.literal(true),
    index: z.number().int().min(0),
    bytes: z.number().int().min(1),
  }),
);

export const SessionRecordParams = lazy(() =>
  z.strictObject({
    id: SessionId(),
    /**
     * With capability `subagents`: the record is one of that subagent's derived history
     * (`session.subagent_history`'s stubs), not of the session's own.
     */
    subagent_id: z.string().regex(TURN_ID_PATTERN).optional(),
    index: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    cursor: Cursor().optional(),
  }),
);
export const SessionRecordResult = lazy(() =>
  z.strictObject({
    index: z.number().int().min(0),
    /** The whole record text's UTF-8 length. */
    bytes: z.number().int().min(1),
    /** Where this chunk starts in the record's text, in UTF-8 bytes. */
    offset: z.number().int().min(0),
    /** The chunk: a piece of the record's JSON text, cut between characters. */
    text: z.string(),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
  }),
);

export type SessionEvent = Infer<typeof SessionEvent>;
export type RecordStub = Infer<typeof RecordStub>;
export type SessionRecordResult = Infer<typeof SessionRecordResult>;
export type SessionEntry = Infer<typeof SessionEntry>;
export type SessionNotice = Infer<typeof SessionNotice>;
export type DiscoveryProgress = Infer<typeof DiscoveryProgress>;
export type SessionListResult = Infer<typeof SessionListResult>;
export type SessionDiscoverResult = Infer<typeof SessionDiscoverResult>;
export type SessionHistoryResult = Infer<typeof SessionHistoryResult>;
