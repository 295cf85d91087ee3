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

export type SessionEvent = z.infer<typeof SessionEvent>;
export type SessionEntry = z.infer<typeof SessionEntry>;
export type SessionNotice = z.infer<typeof SessionNotice>;
export type DiscoveryProgress = z.infer<typeof DiscoveryProgress>;
export type SessionListResult = z.infer<typeof SessionListResult>;
export type SessionDiscoverResult = z.infer<typeof SessionDiscoverResult>;
export type SessionHistoryResult = z.infer<typeof SessionHistoryResult>;
