import type { z } from "zod";
import { safeParse } from "./first-parse.js";

/**
 * A JSON value that is already JSON text: a history record sent exactly as stored (a parse and
 * re-serialisation would drop a `"__proto__"` key, turn `1e400` into null, round big integers
 * and reorder keys). The encoder writes `text` verbatim. The result schema checks `view`
 * instead: the value's fields that the schema names, taken by the very parse that validated
 * `text`. `bytes` is the text's UTF-8 length, which is exactly what it adds to a frame.
 */
export class RawJson<T = unknown> {
  constructor(
    readonly text: string,
    readonly view: T,
    readonly bytes: number = utf8Length(text),
  ) {}
}

/** A result as a handler may give it: any object in it may come as RawJson of itself. */
export type Wire<T> = T extends readonly (infer E)[]
  ? Wire<E>[]
  : T extends object
    ? RawJson<T> | { [K in keyof T]: Wire<T[K]> }
    : T;

/** The UTF-8 length of an item's JSON as the encoder writes it (what a page pays for it). */
export function jsonBytes(item: unknown): number {
  if (item instanceof RawJson) return item.bytes;
  return utf8Length(JSON.stringify(item));
}

/**
 * `raw`: whether `value` holds a RawJson (then only `wireText` writes it right); without one,
 * JSON.stringify writes the same bytes faster, and most results (status, the catalog) hold none.
 */
type WireCheck =
  | { ok: true; value: unknown; raw: boolean }
  | { ok: false; issues: z.core.$ZodIssue[] };

/**
 * Checks a result against its schema, every RawJson in it standing for its view; on success
 * answers the schema's output with each RawJson put back where it was. A schema's first check
 * goes without zod's compiled fast path (first-parse.ts).
 */
export function checkWire(schema: z.ZodType, value: unknown): WireCheck {
  const raw = holdsRaw(value);
  const view = raw ? viewOf(value) : value;
  const checked = safeParse(schema, view);
  if (!checked.success) return { ok: false, issues: checked.error.issues };
  return { ok: true, value: raw ? restore(checked.data, value) : checked.data, raw };
}

/**
 * The JSON text of a value, byte for byte what JSON.stringify writes, except that a RawJson is
 * written as its text. Only arrays and plain objects are walked (results are shallow: only
 * RawJson carries stored, arbitrarily deep content).
 */
export function wireText(value: unknown): string | undefined {
  return holdsRaw(value) ? rawText(value) : JSON.stringify(value);
}

function rawText(value: unknown): string | undefined {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => rawText(item) ?? "null").join(",")}]`;
  if (isPlainRecord(value)) {
    const members: string[] = [];
    for (const key of Object.keys(value)) {
      const text = rawText(value[key]);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Whether a RawJson sits anywhere in the arrays and plain objects of `value` (no allocation). */
function holdsRaw(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (value instanceof RawJson) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsRaw(item)) return true;
    return false;
  }
  if (!isPlainRecord(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key) && holdsRaw(value[key])) return true;
  return false;
}

/** The value with every RawJson replaced by its view; the value itself when it holds none. */
function viewOf(value: unknown): unknown {
  if (value instanceof RawJson) return value.view;
  if (Array.isArray(value)) {
    const items = value.map(viewOf);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (isPlainRecord(value)) {
    const entries = Object.entries(value).map(([key, item]) => [key, viewOf(item)] as const);
    return entries.some(([key, item]) => item !== value[key]) ? Object.fromEntries(entries) : value;
  }
  return value;
}

/** The schema's output with each RawJson of `original` back at its place. */
function restore(checked: unknown, original: unknown): unknown {
  if (original instanceof RawJson) return original;
  if (Array.isArray(checked) && Array.isArray(original))
    return checked.map((item, i) => restore(item, original[i]));
  if (isPlainRecord(checked) && isPlainRecord(original))
    return Object.fromEntries(
      Object.entries(checked).map(([key, item]) => [key, restore(item, original[key])]),
    );
  return checked;
}

/** An object JSON.stringify writes member by member (not a Date or other toJSON holder). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !("toJSON" in value);
}

const encoder = new TextEncoder();
export function utf8Length(text: string): number {
  // Fast path: pure ASCII strings have one byte per code unit.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for the ASCII range
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}
