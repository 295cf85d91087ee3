import { z } from "zod";
import { Cursor, CursorParams, IsoTime, SessionId } from "./common.js";

/** One history record. Unknown `type`s and extra fields are valid and kept. */
export const SessionEvent = z.looseObject({
  type: z.string(),
  ts: z.string(),
  cwd: z.string().optional(),
});

export const SessionEntry = z.strictObject({
  id: SessionId,
  title: z.string().nullable(),
  created_at: IsoTime.nullable(),
  updated_at: IsoTime.nullable(),
  busy: z.boolean(),
  cwd: z.enum(["verified", "unverified"]),
  open: z.literal("exact"),
});

export const SessionNotice = z.strictObject({
  code: z.enum(["cwd_unverified", "sessions_omitted_invalid"]),
  count: z.number().int().min(1),
});

export const SessionListParams = CursorParams;
export const SessionListResult = z.strictObject({
  sessions: z.array(SessionEntry),
  notices: z.array(SessionNotice),
  cursor: Cursor.nullable(),
  complete: z.boolean(),
});

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
export const DiscoveryProgress = z.enum(DISCOVERY_PROGRESS);

export const SessionDiscoverParams = CursorParams;
export const SessionDiscoverResult = z.strictObject({
  sessions: z.array(SessionEntry),
  notices: z.array(SessionNotice),
  cursor: Cursor.nullable(),
  complete: z.boolean(),
  consistency: z.literal("provisional_until_complete"),
  progress: DiscoveryProgress,
  recovery: z.enum(["continue_cursor", "none"]),
});

export const SessionCreateParams = z.strictObject({});
export const SessionCreateResult = z.strictObject({
  session: z.strictObject({ id: SessionId, saved: z.literal(false) }),
});

export const SessionOpenParams = z.strictObject({ id: SessionId });
export const SessionOpenResult = z.strictObject({ session: SessionEntry });

export const SessionHistoryParams = z.strictObject({ id: SessionId, cursor: Cursor.optional() });
export const SessionHistoryResult = z.strictObject({
  events: z.array(SessionEvent),
  cursor: Cursor.nullable(),
  complete: z.boolean(),
});

/**
 * What `session.history` sends in place of a record too large for a page: the record's `type`,
 * `ts`, `cwd` and short scalar fields, where it is (`index`) and its size; `session.record`
 * reads the record itself (docs/turns.md, "Records larger than a page").
 */
export const RecordStub = z.looseObject({
  type: z.string(),
  ts: z.string(),
  cwd: z.string().optional(),
  oversize: z.literal(true),
  index: z.number().int().min(0),
  bytes: z.number().int().min(1),
});

export const SessionRecordParams = z.strictObject({
  id: SessionId,
  index: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  cursor: Cursor.optional(),
});
export const SessionRecordResult = z.strictObject({
  index: z.number().int().min(0),
  /** The whole record text's UTF-8 length. */
  bytes: z.number().int().min(1),
  /** Where this chunk starts in the record's text, in UTF-8 bytes. */
  offset: z.number().int().min(0),
  /** The chunk: a piece of the record's JSON text, cut between characters. */
  text: z.string(),
  cursor: Cursor.nullable(),
  complete: z.boolean(),
});

export type SessionEvent = z.infer<typeof SessionEvent>;
export type RecordStub = z.infer<typeof RecordStub>;
export type SessionRecordResult = z.infer<typeof SessionRecordResult>;
export type SessionEntry = z.infer<typeof SessionEntry>;
export type SessionNotice = z.infer<typeof SessionNotice>;
export type DiscoveryProgress = z.infer<typeof DiscoveryProgress>;
export type SessionListResult = z.infer<typeof SessionListResult>;
export type SessionDiscoverResult = z.infer<typeof SessionDiscoverResult>;
export type SessionHistoryResult = z.infer<typeof SessionHistoryResult>;
