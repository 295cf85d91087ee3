import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { headChars } from "../../protocol/text-cut.js";
import { wellFormed } from "../../protocol/well-formed.js";
import type { RecordStub } from "./record-stub.js";

/**
 * What reading a record gives (read-facts.ts), whichever way it was read: the types both the
 * byte scanner and the parser answer in, the options a reader asks with, and the few rules both
 * apply to the values they take out (the bounds, a user message's first line).
 */

/** What a reader asks of a record: built once per reader (or per scan), never per record. */
export interface RecordReadOptions {
  /** Keep the record's text when it is at most this many bytes (0: never): a history page. */
  readonly keepEventBytes: number;
  /** Extract a user message's first line (only the first message's is ever used). */
  readonly wantUserLine: boolean;
  /** Hand back the parsed value itself (a replay's records); a worker's facts never carry it. */
  readonly keepValue: boolean;
}

/**
 * What a listing needs from one history record, and the record's validity: UTF-8, JSON, an
 * object that is a parser-valid `SessionEvent` (string `type` and `ts`, `cwd` a string when
 * present), with a `ts` of at most 64 characters (mc-agent's bound, see docs/store.md).
 */
export type RecordFacts =
  | { valid: false }
  | {
      valid: true;
      ts: string;
      /** The recorded cwd when nonempty, else null. */
      cwd: string | null;
      /** A `title` event's nonempty title. */
      title: string | null;
      /** A `user_message`'s first line, cut to 80 characters. */
      userLine: string | null;
      /** The record as stored, when asked for and small enough to page (else null). */
      event: StoredEvent | null;
      /** When the record was asked for and is too large to keep: its stub (record-stub.ts). */
      stub: RecordStub | null;
      /**
       * The parsed record, when asked for (else null): what a replay keeps, so that the pass
       * that validates a history also collects its replay without parsing a record twice.
       */
      value: SessionEvent | null;
    };

/**
 * A record's own JSON text, for `session.history` to send as stored: never re-serialised, so
 * extra fields (`__proto__` too), number spellings, escapes, key order and any nesting depth
 * survive. Only the JSON whitespace around the object is left out (a CRLF file's CR).
 * `head` is the record's `SessionEvent` fields, what the result schema checks.
 */
export interface StoredEvent {
  text: string;
  /** The UTF-8 length of `text`. */
  bytes: number;
  head: SessionEvent;
}

/** Every history's record is bounded by 8 MiB (the extension's `record_bytes`). */
export const RECORD_BYTES = 8_388_608;

export const TS_MAX_CHARS = 64;
const TITLE_FROM_MESSAGE_CHARS = 80;

/**
 * What a listing's summary takes from a valid record (its `ts`, `cwd`, title and first user
 * line): one rule for the readers above and for a writer that summarises the records it copies
 * (a fork, fork-plan.ts).
 */
export function summaryFacts(event: SessionEvent, wantUserLine: boolean) {
  return {
    valid: true as const,
    ts: event.ts,
    cwd: event.cwd ? event.cwd : null,
    title:
      event.type === "title" && typeof event.title === "string" && event.title !== ""
        ? event.title
        : null,
    userLine:
      wantUserLine && event.type === "user_message" && typeof event.text === "string"
        ? firstLineCut(event.text)
        : null,
  };
}

/** The first line, without a trailing CR, cut to 80 characters (code points). */
export function firstLineCut(text: string): string {
  const lf = text.indexOf("\n");
  let line = lf === -1 ? text : text.slice(0, lf);
  if (line.endsWith("\r")) line = line.slice(0, -1);
  // Another tool's history may hold a lone surrogate escape: the title (a frame's text) may not.
  return wellFormed(headChars(line, TITLE_FROM_MESSAGE_CHARS));
}
