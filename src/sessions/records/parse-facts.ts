import { isUtf8 } from "node:buffer";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { headChars } from "../../protocol/text-cut.js";
import { wellFormed } from "../../protocol/well-formed.js";
import { type RecordStub, recordStub } from "./record-stub.js";

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

export const TS_MAX_CHARS = 64;
export const TITLE_FROM_MESSAGE_CHARS = 80;

/**
 * The facts of the record `source[from, to)`.
 * `keepEventBytes`: keep the record's text when it is at most this many bytes (0: never).
 * Nothing here depends on the record's nesting depth: JSON.parse is iterative, and the parsed
 * value is only ever read at its top level (never serialised, cloned or walked).
 * `wantUserLine`: extract a user message's first line (only the first message's is ever used).
 * `keepValue`: hand back the parsed value itself.
 */
export function factsOf(
  source: Buffer,
  from: number,
  to: number,
  keepEventBytes = 0,
  wantUserLine = true,
  keepValue = false,
): RecordFacts {
  const text = utf8Text(source, from, to);
  if (text === null) return { valid: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { valid: false };
  }
  if (!isSessionEvent(value)) return { valid: false };
  const event = value;
  if (event.ts.length > TS_MAX_CHARS) return { valid: false };
  const stored = keepEventBytes > 0 ? storedEvent(text, to - from, event, keepEventBytes) : null;
  return {
    ...summaryFacts(event, wantUserLine),
    event: stored !== null && "text" in stored ? stored : null,
    stub: stored !== null && "fields" in stored ? stored : null,
    value: keepValue ? event : null,
  };
}

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

/** The record's text when it is at most `keepBytes`, else its stub. */
function storedEvent(
  text: string,
  bytes: number,
  event: SessionEvent,
  keepBytes: number,
): StoredEvent | RecordStub {
  // The text parsed as an object: what trim() drops is JSON whitespace, one byte a character.
  const trimmed = text.trim();
  const trimmedBytes = bytes - (text.length - trimmed.length);
  if (trimmedBytes > keepBytes)
    return recordStub(event, text.length - text.trimStart().length, trimmedBytes);
  const head: SessionEvent = { type: event.type, ts: event.ts };
  if (event.cwd !== undefined) head.cwd = event.cwd;
  return { text: trimmed, bytes: trimmedBytes, head };
}

/**
 * The parsed value of the record `source[from, to)`, which factsOf already found valid (so it is
 * UTF-8 and a `SessionEvent`): for a record whose facts came from the worker without it.
 */
export function parsedEvent(source: Buffer, from: number, to: number): SessionEvent {
  return JSON.parse(source.toString("utf8", from, to)) as SessionEvent;
}

const REPLACEMENT = "\uFFFD";

/**
 * The record as text, or null when it is not valid UTF-8. A lenient decoding turns every
 * invalid sequence into U+FFFD, so a text without one came from valid UTF-8 and needs no
 * second look; only a text that has one (invalid, or a real U+FFFD) is checked strictly. That
 * is the strict decoder's verdict without its cost on every record (a view object, a second
 * pass over the bytes); the search for U+FFFD in a text of one-byte characters is cheap.
 * A leading byte-order mark is kept either way (and refused by JSON.parse).
 */
function utf8Text(source: Buffer, from: number, to: number): string | null {
  const text = source.toString("utf8", from, to);
  if (!text.includes(REPLACEMENT) || isUtf8(source.subarray(from, to))) return text;
  return null;
}

/** The first line, without a trailing CR, cut to 80 characters (code points). */
export function firstLineCut(text: string): string {
  const lf = text.indexOf("\n");
  let line = lf === -1 ? text : text.slice(0, lf);
  if (line.endsWith("\r")) line = line.slice(0, -1);
  // Another tool's history may hold a lone surrogate escape: the title (a frame's text) may not.
  return wellFormed(headChars(line, TITLE_FROM_MESSAGE_CHARS));
}

/**
 * Exactly `SessionEvent.safeParse(value).success` for a value that came from JSON.parse: an
 * object (not null, not an array) with string `type` and `ts` and, when present, a string
 * `cwd`. It checks the parsed value in place, where the schema would build a copy of every
 * record only for it to be dropped (a tenth of a discovery's time). A unit test holds the two
 * to the same verdicts.
 */
export function isSessionEvent(value: unknown): value is SessionEvent {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.type === "string" &&
    typeof record.ts === "string" &&
    (record.cwd === undefined || typeof record.cwd === "string")
  );
}
