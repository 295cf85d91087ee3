/**
 * A byte-level JSON syntax checker (RFC 8259, the grammar JSON.parse accepts), for records read
 * from a history: it proves a record's text is JSON without building a value, so that a cold
 * listing need not allocate a string and an object graph per record only to read five fields
 * (docs/store.md, "Cold reads"). It works on the bytes as read: no decoding, no view objects.
 *
 * What it does not check is UTF-8: a byte at or above 0x80 is only legal inside a string, and
 * there it sets `scanState.nonAscii`, so that a caller checks the record's encoding once (with
 * node's isUtf8) only when it has such a byte at all.
 *
 * Nesting is followed with an explicit stack (one byte a level, grown on demand), never by
 * recursion: a record nested a million levels deep is checked in linear time like any other.
 *
 * HOT LOOPS read the module's tables and constants through locals. In the child's bundle this
 * module is loaded on first use (esbuild's `__esm` wrapper), so its top-level constants become
 * variables assigned by an init function, which V8 reads from their context again on every use
 * and cannot fold: the loops over every byte of a history then ran at about half their speed
 * (issue 44: the scanner took twice as long in the child as in the ES build).
 */

/** Byte classes inside a string: 0 ordinary (the hot loop skips these). */
const PLAIN = 0;
const QUOTE = 1;
const BACKSLASH = 2;
const CONTROL = 3;
const HIGH = 4;

const STRING_CLASS = new Uint8Array(256);
for (let b = 0; b < 0x20; b += 1) STRING_CLASS[b] = CONTROL;
for (let b = 0x80; b < 0x100; b += 1) STRING_CLASS[b] = HIGH;
STRING_CLASS[0x22] = QUOTE;
STRING_CLASS[0x5c] = BACKSLASH;

/** The escapes after a backslash other than `u`: " \ / b f n r t. */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

const HEX = new Uint8Array(256);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;

/** JSON's four whitespace bytes (space, tab, LF, CR); nothing else, not even a BOM or NBSP. */
const SPACE = new Uint8Array(256);
for (const b of [0x20, 0x09, 0x0a, 0x0d]) SPACE[b] = 1;

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const QUOTE_BYTE = 0x22;
const BACKSLASH_BYTE = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * What the last scans saw, beyond their end offsets: module state rather than a result object
 * per string (a record has thousands of strings; the caller resets and reads these).
 */
export const scanState = {
  /** The last scanned string had an escape (its text differs from its bytes). */
  escaped: false,
  /** Some scanned string had a byte at or above 0x80 since the caller last reset this. */
  nonAscii: false,
};

/** The first offset at or after `at` that is not JSON whitespace (at most `to`). */
export function skipSpace(source: Uint8Array, at: number, to: number): number {
  const space = SPACE; // a local: see HOT LOOPS above
  while (at < to && space[source[at] as number] === 1) at += 1;
  return at;
}

/**
 * The offset just past the string whose opening quote is at `at`, or -1 when it is not a valid
 * JSON string before `to` (a raw control byte, a bad escape, no closing quote). Sets
 * `scanState.escaped` to whether it had an escape; sets (never clears) `scanState.nonAscii`.
 */
export function scanString(source: Uint8Array, at: number, to: number): number {
  // Locals: see HOT LOOPS above.
  const classes = STRING_CLASS;
  const plain = PLAIN;
  const wordAfter = WORD_AFTER;
  let i = at + 1;
  let escaped = false;
  for (;;) {
    // Short strings (keys, most values) byte by byte; a long run four bytes at a time.
    const near = Math.min(to, i + wordAfter);
    while (i < near && classes[source[i] as number] === plain) i += 1;
    if (i === near && i < to) i = skipPlainWords(source, i, to);
    while (i < to && classes[source[i] as number] === plain) i += 1;
    if (i >= to) return -1;
    const kind = classes[source[i] as number];
    if (kind === QUOTE) {
      scanState.escaped = escaped;
      return i + 1;
    }
    if (kind === HIGH) {
      scanState.nonAscii = true;
      i += 1;
    } else if (kind === BACKSLASH) {
      escaped = true;
      if (i + 1 >= to) return -1;
      const next = source[i + 1] as number;
      if (SIMPLE_ESCAPE[next] === 1) i += 2;
      else if (next === 0x75 && i + 5 < to && isHex4(source, i + 2)) i += 6;
      else return -1;
    } else return -1;
  }
}

/** A string's run longer than this is scanned a word at a time. */
const WORD_AFTER = 32;

/** A run still plain this many words on is long: its end is found natively (`skipLongRun`). */
const LONG_RUN_WORDS = 256;

/** The word view of the last buffer scanned (the reader's buffers are reused: one view each). */
let wordsOf: ArrayBufferLike | null = null;
let words: Int32Array<ArrayBufferLike> = new Int32Array(0);

/** Buffer's indexOf (memchr), which also takes a plain Uint8Array: the scanner's sources are. */
const indexOfByte = Buffer.prototype.indexOf as (
  this: Uint8Array,
  value: number,
  byteOffset?: number,
) => number;

/**
 * Past the plain bytes (PLAIN or HIGH) of a string from `i`: an offset at or before its first
 * special byte (a quote, a backslash, a control byte), which the byte loop then finds. Words of
 * four bytes first, each test below exact for "some byte of the word is ...", the classic bit
 * tricks: `(x - 0x21212121) & ~x & 0x80808080` with `x = w ^ 0x02020202` for a byte under 0x20
 * or a quote (the XOR maps exactly those to bytes under 0x21), and `(s - 0x01010101) & ~s` with
 * `s = w ^ 0x5c5c5c5c` for a backslash. Byte order does not matter: only whether such a byte
 * exists in the word. A run still plain after `LONG_RUN_WORDS` words (long text, base64 data)
 * goes on in `skipLongRun`; text with escapes every line stops well before.
 */
function skipPlainWords(source: Uint8Array, i: number, to: number): number {
  if (wordsOf !== source.buffer) {
    wordsOf = source.buffer;
    words = new Int32Array(source.buffer, 0, source.buffer.byteLength >> 2);
  }
  const base = source.byteOffset;
  const classes = STRING_CLASS; // locals: see HOT LOOPS above
  const view = words;
  // Bytes up to the first word boundary one by one (the caller's loop then finds a special one).
  let at = i;
  while (at < to && ((base + at) & 3) !== 0) {
    const kind = classes[source[at] as number];
    if (kind === HIGH) scanState.nonAscii = true;
    else if (kind !== PLAIN) return at;
    at += 1;
  }
  let k = (base + at) >> 2;
  const last = (base + to) >> 2; // words wholly before `to`
  const long = Math.min(last, k + LONG_RUN_WORDS);
  let high = 0;
  while (k < long) {
    const w = view[k] as number;
    const x = w ^ 0x02020202;
    const slash = w ^ 0x5c5c5c5c;
    const special = ((x - 0x21212121) & ~x) | ((slash - 0x01010101) & ~slash);
    if ((special & 0x80808080) !== 0) break;
    high |= w;
    k += 1;
  }
  if ((high & 0x80808080) !== 0) scanState.nonAscii = true;
  if (k === long && k < last) return skipLongRun(source, k * 4 - base, to);
  return k * 4 - base;
}

/**
 * A long plain run from the word-aligned `i`: its closing quote and its first backslash found by
 * memchr (tens of GB/s), then the bytes before them checked for a control byte (and a high
 * byte) a word at a time without a branch per word (`(w - 0x20202020) & ~w & 0x80808080`: some
 * byte under 0x20).
 * Returns the last word boundary before that quote or backslash (the byte loop finds it), or `i`
 * itself when a control byte lies before it (the byte loop finds that too: a string that holds
 * one is not JSON). The backslash is looked for before the quote only, so a record of many long
 * strings is still read once. (Leaving the high bytes to node's isUtf8 on every such record
 * instead was slower: measured.)
 */
function skipLongRun(source: Uint8Array, i: number, to: number): number {
  let end = indexOfByte.call(source, QUOTE_BYTE, i);
  if (end === -1 || end > to) end = to;
  const slash = indexOfByte.call(source.subarray(i, end), BACKSLASH_BYTE);
  if (slash !== -1) end = i + slash;
  const base = source.byteOffset;
  let k = (base + i) >> 2;
  const last = (base + end) >> 2;
  let control = 0;
  let high = 0;
  const view = words; // a local: see HOT LOOPS above
  for (; k < last; k += 1) {
    const w = view[k] as number;
    control |= (w - 0x20202020) & ~w;
    high |= w;
  }
  if ((control & 0x80808080) !== 0) return i;
  if ((high & 0x80808080) !== 0) scanState.nonAscii = true;
  return k * 4 - base;
}

function isHex4(source: Uint8Array, at: number): boolean {
  return (
    HEX[source[at] as number] === 1 &&
    HEX[source[at + 1] as number] === 1 &&
    HEX[source[at + 2] as number] === 1 &&
    HEX[source[at + 3] as number] === 1
  );
}

const isDigit = (b: number | undefined) => b !== undefined && b >= ZERO && b <= NINE;

/** The offset past the number starting at `at` (-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?), or -1. */
function scanNumber(source: Uint8Array, at: number, to: number): number {
  let i = at;
  if (source[i] === MINUS) i += 1;
  if (i >= to) return -1;
  if (source[i] === ZERO) i += 1;
  else if (isDigit(source[i])) while (i < to && isDigit(source[i])) i += 1;
  else return -1;
  if (i < to && source[i] === 0x2e) {
    i += 1;
    if (i >= to || !isDigit(source[i])) return -1;
    while (i < to && isDigit(source[i])) i += 1;
  }
  if (i < to && (source[i] === 0x65 || source[i] === 0x45)) {
    i += 1;
    if (i < to && (source[i] === 0x2b || source[i] === MINUS)) i += 1;
    if (i >= to || !isDigit(source[i])) return -1;
    while (i < to && isDigit(source[i])) i += 1;
  }
  return i;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

function scanLiteral(source: Uint8Array, at: number, to: number, word: number[]): number {
  if (at + word.length > to) return -1;
  for (let k = 0; k < word.length; k += 1) if (source[at + k] !== word[k]) return -1;
  return at + word.length;
}

/** A scalar (string, number, literal) at `at`, whose first byte is `b`: its end, or -1. */
function scanScalar(source: Uint8Array, at: number, to: number, b: number): number {
  if (b === QUOTE_BYTE) return scanString(source, at, to);
  if (b === MINUS || (b >= ZERO && b <= NINE)) return scanNumber(source, at, to);
  if (b === 0x74) return scanLiteral(source, at, to, TRUE);
  if (b === 0x66) return scanLiteral(source, at, to, FALSE);
  if (b === 0x6e) return scanLiteral(source, at, to, NULL);
  return -1;
}

/** Open containers of the value being scanned: 1 an object, 2 an array. Grown, never shrunk. */
let stack = new Uint8Array(256);

function push(depth: number, kind: number): void {
  if (depth === stack.length) {
    const grown = new Uint8Array(stack.length * 2);
    grown.set(stack);
    stack = grown;
  }
  stack[depth] = kind;
}

/**
 * The offset just past the JSON value that starts at `at` (no whitespace before it), or -1 when
 * `source[at, to)` does not start with a valid value. Whatever follows the value is the caller's.
 */
export function scanValue(source: Uint8Array, at: number, to: number): number {
  let depth = 0;
  let i = at;
  for (;;) {
    // A value starts at i.
    if (i >= to) return -1;
    const b = source[i] as number;
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      i = skipSpace(source, i + 1, to);
      if (i >= to) return -1;
      const close = b === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      if (source[i] === close) i += 1;
      else {
        push(depth, b === OPEN_OBJECT ? 1 : 2);
        depth += 1;
        if (b === OPEN_OBJECT) {
          i = memberKey(source, i, to);
          if (i < 0) return -1;
        }
        continue;
      }
    } else {
      i = scanScalar(source, i, to, b);
      if (i < 0) return -1;
    }
    // After a value: close containers until a comma starts the next value.
    for (;;) {
      if (depth === 0) return i;
      i = skipSpace(source, i, to);
      if (i >= to) return -1;
      const c = source[i];
      const kind = stack[depth - 1];
      if (c === COMMA) {
        i = skipSpace(source, i + 1, to);
        if (kind === 1) {
          i = memberKey(source, i, to);
          if (i < 0) return -1;
        }
        break;
      }
      if ((kind === 1 && c === CLOSE_OBJECT) || (kind === 2 && c === CLOSE_ARRAY)) {
        depth -= 1;
        i += 1;
      } else return -1;
    }
  }
}

/**
 * A member's key and colon, the key's quote at `at`: the offset of the member's value (past
 * the whitespace after the colon), or -1.
 */
function memberKey(source: Uint8Array, at: number, to: number): number {
  if (at >= to || source[at] !== QUOTE_BYTE) return -1;
  let i = scanString(source, at, to);
  if (i < 0) return -1;
  i = skipSpace(source, i, to);
  if (i >= to || source[i] !== COLON) return -1;
  return skipSpace(source, i + 1, to);
}
