import { isUtf8 } from "node:buffer";
import { firstLineCut, type RecordFacts, TS_MAX_CHARS } from "./facts.js";
import { scanState, scanString, scanValue, skipSpace } from "./json-syntax.js";

/**
 * The listing facts of a record read from its bytes (json-syntax.ts), without JSON.parse: what a
 * cold listing does for every record of every history (docs/store.md, "Cold reads").
 *
 * It answers only when it can prove the answer equal to what `parseFacts` (JSON.parse and
 * isSessionEvent) gives: the whole record is valid JSON syntax and valid UTF-8, its top level is
 * an object, and its `type`, `ts` and `cwd` (the last of each, as JSON.parse keeps the last of a
 * duplicate key) are strings or absent as the schema needs, `ts` within its bound. For anything
 * else it returns null and the caller parses the record (an invalid record is rare: it ends its
 * history), so the parse has the last word on every record the scanner does not vouch for.
 * The few values a row needs are decoded from their own bytes; an escaped one (or key) through
 * JSON.parse of that string alone, so escapes and lone surrogates decode as JSON.parse does.
 */
type ScannedFacts = Extract<RecordFacts, { valid: true }>;

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** The top-level members a row reads. */
const TYPE = 0;
const TS = 1;
const CWD = 2;
const TITLE = 3;
const TEXT = 4;

/** The same names as text, in slot order (for a key written with escapes). */
const WANTED = ["type", "ts", "cwd", "title", "text"];

const t = 0x74;

/** Which wanted member the key `source[from, to)` (its bytes inside the quotes) names, or -1. */
function wantedKey(source: Uint8Array, from: number, to: number): number {
  const length = to - from;
  const first = source[from];
  if (length === 2) return first === t && source[from + 1] === 0x73 ? TS : -1;
  if (length === 3)
    return first === 0x63 && source[from + 1] === 0x77 && source[from + 2] === 0x64 ? CWD : -1;
  if (length === 4 && first === t) {
    const second = source[from + 1];
    if (second === 0x79 && source[from + 2] === 0x70 && source[from + 3] === 0x65) return TYPE;
    if (second === 0x65 && source[from + 2] === 0x78 && source[from + 3] === t) return TEXT;
    return -1;
  }
  if (length === 5 && first === t)
    return source[from + 1] === 0x69 &&
      source[from + 2] === t &&
      source[from + 3] === 0x6c &&
      source[from + 4] === 0x65
      ? TITLE
      : -1;
  return -1;
}

/**
 * Where each wanted member's last value lies: start and end offsets, and whether it is a string
 * and had an escape. Module state, reset per record: no allocation per record.
 */
const starts = new Int32Array(5);
const ends = new Int32Array(5);
const escapes = new Uint8Array(5);

/**
 * MC_AGENT_RECORD_SCAN=parse: every record goes through JSON.parse, as before the scanner (to
 * compare the two, or to rule the scanner out). Read once, at load; the parse worker thread
 * (parse-worker.ts) reads the same environment.
 */
export const SCAN_ENABLED = process.env.MC_AGENT_RECORD_SCAN !== "parse";

/** The record `source[from, to)`'s facts, or null: parse it (see above). */
export function scanFacts(
  source: Buffer,
  from: number,
  to: number,
  wantUserLine: boolean,
): ScannedFacts | null {
  // Locals, read once a record: json-syntax.ts's HOT LOOPS says why.
  const state = scanState;
  const first = starts;
  const last = ends;
  const escaped = escapes;
  first.fill(-1);
  state.nonAscii = false;
  let i = skipSpace(source, from, to);
  if (i >= to || source[i] !== OPEN_OBJECT) return null;
  i = skipSpace(source, i + 1, to);
  if (i < to && source[i] === CLOSE_OBJECT) return null; // {}: no type, not an event.
  for (;;) {
    if (i >= to || source[i] !== QUOTE) return null;
    const keyEnd = scanString(source, i, to);
    if (keyEnd < 0) return null;
    // An escaped key may spell a wanted name ("t\u0079pe" is `type`): decoded, as JSON.parse does.
    const slot = state.escaped
      ? WANTED.indexOf(JSON.parse(source.toString("utf8", i, keyEnd)))
      : wantedKey(source, i + 1, keyEnd - 1);
    i = skipSpace(source, keyEnd, to);
    if (i >= to || source[i] !== 0x3a) return null;
    const valueStart = skipSpace(source, i + 1, to);
    state.escaped = false;
    const valueEnd = scanValue(source, valueStart, to);
    if (valueEnd < 0) return null;
    if (slot !== -1) {
      // The last occurrence wins, as in JSON.parse.
      first[slot] = valueStart;
      last[slot] = valueEnd;
      escaped[slot] = state.escaped ? 1 : 0;
    }
    i = skipSpace(source, valueEnd, to);
    if (i >= to) return null;
    if (source[i] === COMMA) i = skipSpace(source, i + 1, to);
    else if (source[i] === CLOSE_OBJECT) break;
    else return null;
  }
  if (skipSpace(source, i + 1, to) !== to) return null;
  if (state.nonAscii && !isUtf8(source.subarray(from, to))) return null;
  return factsFromMembers(source, wantUserLine);
}

/** The two types a row reads something from, as their bytes. */
const TITLE_TYPE = Buffer.from("title");
const USER_MESSAGE_TYPE = Buffer.from("user_message");

/**
 * Whether the record's `type` (a string) is `word`: compared as bytes, since a row needs no
 * other use of the type than this (decoding it cost a string per record); an escaped type is
 * decoded first, as JSON.parse would.
 */
function typeIs(source: Buffer, word: Buffer): boolean {
  if (escapes[TYPE] === 1) return stringOf(source, TYPE) === word.toString("latin1");
  const from = (starts[TYPE] as number) + 1;
  return (ends[TYPE] as number) - 1 - from === word.length && sameBytes(source, from, word);
}

/** Whether `source[from, from + length)` equals `bytes[0, length)`. */
function sameBytes(source: Uint8Array, from: number, bytes: Uint8Array, length = bytes.length) {
  for (let k = 0; k < length; k += 1) if (source[from + k] !== bytes[k]) return false;
  return true;
}

/**
 * The last cwd decoded and its bytes: a history repeats one cwd record after record, and
 * comparing its bytes with the last one's costs less than decoding a string per record.
 * Module state, as the offsets above; only unescaped cwds up to CWD_MEMO_BYTES are kept.
 */
const CWD_MEMO_BYTES = 1024;
const lastCwdBytes = Buffer.alloc(CWD_MEMO_BYTES);
let lastCwdLength = -1;
let lastCwd = "";

function cwdOf(source: Buffer): string {
  if (escapes[CWD] === 1) return stringOf(source, CWD);
  const from = (starts[CWD] as number) + 1;
  const length = (ends[CWD] as number) - 1 - from;
  if (length > CWD_MEMO_BYTES) return stringOf(source, CWD);
  if (length === lastCwdLength && sameBytes(source, from, lastCwdBytes, length)) return lastCwd;
  lastCwd = stringOf(source, CWD);
  source.copy(lastCwdBytes, 0, from, from + length);
  lastCwdLength = length;
  return lastCwd;
}

function isString(source: Uint8Array, slot: number): boolean {
  return starts[slot] !== -1 && source[starts[slot] as number] === QUOTE;
}

/** The decoded string value of a wanted member (which isString found a string). */
function stringOf(source: Buffer, slot: number): string {
  const start = starts[slot] as number;
  const end = ends[slot] as number;
  if (escapes[slot] === 1) return JSON.parse(source.toString("utf8", start, end)) as string;
  return source.toString("utf8", start + 1, end - 1);
}

function factsFromMembers(source: Buffer, wantUserLine: boolean): ScannedFacts | null {
  if (!isString(source, TYPE) || !isString(source, TS)) return null;
  // A present cwd that is not a string fails the schema: the parse path says so.
  if (starts[CWD] !== -1 && !isString(source, CWD)) return null;
  const ts = stringOf(source, TS);
  if (ts.length > TS_MAX_CHARS) return null;
  const cwd = starts[CWD] === -1 ? "" : cwdOf(source);
  const title =
    typeIs(source, TITLE_TYPE) && isString(source, TITLE) ? stringOf(source, TITLE) : "";
  const userLine =
    wantUserLine && typeIs(source, USER_MESSAGE_TYPE) && isString(source, TEXT)
      ? firstLineCut(stringOf(source, TEXT))
      : null;
  return {
    valid: true,
    ts,
    cwd: cwd === "" ? null : cwd,
    title: title === "" ? null : title,
    userLine,
    event: null,
    stub: null,
    value: null,
  };
}
