import type { SessionEvent, SessionRecordResult } from "./schemas/sessions.js";
import { parseJson } from "./well-formed.js";

/** A record is at most 8 MiB (the store's record bound): more text than that is a broken child. */
export const RECORD_TEXT_BYTES = 8_388_608;

/**
 * Whether a history event is the stub `session.history` sends for a record too large for a
 * page (docs/turns.md, "Records larger than a page"): read the record with `session.record`.
 */
export function isRecordStub(
  event: SessionEvent,
): event is SessionEvent & { oversize: true; index: number; bytes: number } {
  return (
    event.oversize === true &&
    Number.isSafeInteger(event.index) &&
    Number.isSafeInteger(event.bytes)
  );
}

/** A chunk sequence that is not one whole record: the backend broke the method's rules. */
export class RecordTextError extends Error {
  override readonly name = "RecordTextError";
}

/**
 * One record whole from `session.record`'s chunks (`fetch(null)` is the first call, then each
 * cursor): the chunks must follow each other (`offset`), stay within the `bytes` they announce
 * and the 8 MiB bound, and parse as one history event. No I/O of its own: the SDK and the ACP
 * agent each give the call they make.
 */
export async function joinRecord(
  fetch: (cursor: string | null) => Promise<SessionRecordResult>,
): Promise<SessionEvent> {
  const pieces: string[] = [];
  let received = 0;
  let cursor: string | null = null;
  for (;;) {
    const chunk: SessionRecordResult = await fetch(cursor);
    if (chunk.bytes > RECORD_TEXT_BYTES || chunk.offset !== received)
      throw new RecordTextError("A record chunk is out of place.");
    pieces.push(chunk.text);
    received += Buffer.byteLength(chunk.text);
    if (received > chunk.bytes) throw new RecordTextError("A record is longer than it said.");
    if (chunk.complete) {
      if (received !== chunk.bytes) throw new RecordTextError("A record ended before its size.");
      return parsedEvent(pieces.join(""));
    }
    if (chunk.cursor === null)
      throw new RecordTextError("An incomplete record chunk had no cursor.");
    cursor = chunk.cursor;
  }
}

function parsedEvent(text: string): SessionEvent {
  let value: unknown = null;
  try {
    value = parseJson(text);
  } catch {}
  const record = value as Record<string, unknown> | null;
  if (
    typeof record !== "object" ||
    record === null ||
    Array.isArray(record) ||
    typeof record.type !== "string" ||
    typeof record.ts !== "string"
  )
    throw new RecordTextError("A record is not a history event.");
  return record as SessionEvent;
}
