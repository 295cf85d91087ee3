import { utf8Length } from "./raw-json.js";

/**
 * Cutting text for frames and records, always between code points: a cut by UTF-16 units
 * (`slice(0, n)`) can end in half of a surrogate pair (an emoji), which a strict decoder refuses.
 * Every bounded text (titles, search lines, summaries, deltas, events, tool output bytes) is
 * cut here.
 */

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** True when a cut at UTF-16 index `at` would split a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  return (
    at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at))
  );
}

/** The first `max` characters (code points) of `text`; all of it when it has no more. */
export function headChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let at = 0;
  for (let n = 0; n < max && at < text.length; n++) at += splitsPair(text, at + 1) ? 2 : 1;
  return text.slice(0, at);
}

/** `text` cut to `max` characters, with `mark` appended when something was cut. */
export function clipChars(text: string, max: number, mark = "…"): string {
  const head = headChars(text, max);
  return head.length === text.length ? text : head + mark;
}

/** `text` when it has at most `width` characters, else its first `width - 1` and `mark`. */
export function fitChars(text: string, width: number, mark = "…"): string {
  return headChars(text, width).length === text.length ? text : headChars(text, width - 1) + mark;
}

/** `text` in pieces of at most `size` UTF-16 units (one more for a pair at the end of a piece). */
export function chunkChars(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + Math.max(1, size));
    if (splitsPair(text, end)) end += 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** The last `max` characters (code points) of `text`. */
export function tailChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let at = text.length;
  for (let n = 0; n < max && at > 0; n++) at -= splitsPair(text, at - 1) ? 2 : 1;
  return text.slice(at);
}

/** A UTF-8 continuation byte (0b10xxxxxx): never the first byte of a character. */
const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** At most `limit` leading bytes of UTF-8 `bytes`, ending on a character boundary. */
export function headBytes(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let end = Math.max(0, limit);
  while (end > 0 && isContinuation(bytes[end])) end--;
  return bytes.subarray(0, end);
}

/** At most `limit` trailing bytes of UTF-8 `bytes`, starting on a character boundary. */
export function tailBytes(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let start = bytes.length - Math.max(0, limit);
  while (start < bytes.length && isContinuation(bytes[start])) start++;
  return bytes.subarray(start);
}

/** The UTF-8 size of the code point whose first unit is at `i`, and its units. */
function codePointAt(text: string, i: number): { code: number; units: number } {
  const code = text.codePointAt(i) ?? 0;
  return { code, units: code > 0xffff ? 2 : 1 };
}

const utf8Size = (code: number) => (code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4);

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a code point. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  if (utf8Length(text) <= maxBytes) return text.length > 0 ? [text] : [];
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const { code, units } = codePointAt(text, i);
    const size = utf8Size(code);
    if (bytes + size > maxBytes && i > start) {
      pieces.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += size;
    i += units;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** Text that JSON encodes as itself: printable ASCII without `"` and `\\`. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The bytes `text` takes inside a JSON string (without its quotes), exactly: most model text is
 * plain ASCII, measured without building its encoding.
 */
export function jsonTextBytes(text: string): number {
  if (PLAIN_JSON.test(text)) return text.length;
  return utf8Length(JSON.stringify(text)) - 2;
}

/** What one code point takes inside a JSON string, as JSON.stringify writes it. */
function jsonSize(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2; // \" and \\
  if (code < 0x20)
    return code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
  if (code >= 0xd800 && code <= 0xdfff) return 6; // a lone surrogate: \udXXX
  return utf8Size(code);
}

/** The longest head of `text` that takes at most `maxBytes` inside a JSON string. */
export function headJsonBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const { code, units } = codePointAt(text, i);
    bytes += jsonSize(code);
    if (bytes > maxBytes) return text.slice(0, i);
    i += units;
  }
  return text;
}
