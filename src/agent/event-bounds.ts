import { utf8Length } from "../protocol/raw-json.js";
import { TURN_EXTENSION, type TurnEventParams } from "../protocol/schemas/turns.js";
import { headJsonBytes, jsonTextBytes } from "../protocol/text-cut.js";

/**
 * The size bound of one turn event: the whole `turn.event` frame, serialized (UTF-8, without its
 * LF), is at most `event_bytes`, whatever its texts, IDs, path and JSON escaping. Only
 * `message_done`, which carries a whole message item, is bounded otherwise (docs/turns.md).
 */
export const EVENT_BYTES = TURN_EXTENSION.event_bytes;

/**
 * Room for a frame's envelope and IDs: a delta's frame is at most about 300 bytes besides its
 * text (its request, turn and item IDs are at most 64 plain characters each).
 */
const ENVELOPE_BYTES = 512;

/**
 * Text budget of one delta event. JSON escaping can make a text up to six times its UTF-8 size
 * (a control character becomes `\u0001`), so a piece of this many bytes always encodes, with its
 * envelope, within `event_bytes`. Deltas are the bulk of a turn's frames: they are split by
 * this budget, never measured.
 */
export const EVENT_TEXT_BYTES = Math.floor((EVENT_BYTES - ENVELOPE_BYTES) / 6);

/** Marks a text cut to fit one event. */
export const CUT_MARK = "\n[... cut to fit the event size]";
/** Marks a title cut to fit one event (as a title cut at its length is). */
export const TITLE_MARK = "…";

/** The largest seq a frame can carry: measuring with it bounds every real seq's frame. */
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** The UTF-8 size of the frame that carries `event` (at any seq), without its LF. */
export function eventFrameBytes(params: Omit<TurnEventParams, "seq">): number {
  const frame = { method: "turn.event", params: { ...params, seq: MAX_SEQ } };
  return utf8Length(JSON.stringify(frame));
}

type TextKey<E> = { [K in keyof E]: E[K] extends string | null ? K : never }[keyof E];

/** A text field of an event that may be cut to fit, and the mark that ends it when cut. */
export interface Shrinkable<E> {
  key: TextKey<E>;
  mark: string;
}

/**
 * The event with its `fields` cut, in order, until its whole frame (`measure`) fits
 * `event_bytes`, and whether anything was cut. Each cut is exact: the field loses what the
 * frame is over by, plus room for its mark, at a code point.
 */
export function fitEvent<E extends object>(
  event: E,
  fields: Shrinkable<E>[],
  measure: (event: E) => number,
): { event: E; cut: boolean } {
  let current = event;
  let cut = false;
  for (const { key, mark } of fields) {
    const over = measure(current) - EVENT_BYTES;
    if (over <= 0) break;
    const text = current[key] as string | null;
    if (typeof text !== "string") continue;
    const bytes = jsonTextBytes(text);
    const shorter = `${headJsonBytes(text, Math.max(0, bytes - over - jsonTextBytes(mark)))}${mark}`;
    if (jsonTextBytes(shorter) >= bytes) continue; // too short to lose anything by a cut
    current = { ...current, [key]: shorter };
    cut = true;
  }
  return { event: current, cut };
}

/**
 * A tool input as the `tool_call` event shows one too large for it (a `write_file` of a large
 * file): its size. The record and the tool get the whole input.
 */
export function omittedInput(input: unknown): { omitted_bytes: number } {
  return { omitted_bytes: utf8Length(JSON.stringify(input) ?? "null") };
}
