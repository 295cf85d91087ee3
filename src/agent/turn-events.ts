import type { TurnEventBody, TurnEventParams } from "../protocol/schemas/turns.js";
import { TURN_EXTENSION } from "../protocol/schemas/turns.js";

/** How the engine hands one event to the client; awaiting it is back-pressure. */
export type Notify = (params: TurnEventParams) => Promise<void>;

/**
 * The turn's outbound events: gapless `seq` from 0, the turn's IDs on every event, and long
 * texts split so that no event carries more than `event_bytes` of text (so every frame stays
 * far below `frame_bytes`, whatever its JSON escaping).
 */
export class TurnEvents {
  private seq = 0;

  constructor(
    private readonly notify: Notify,
    private readonly requestId: string,
    private readonly turnId: string,
  ) {}

  emit(event: TurnEventBody): Promise<void> {
    const params = { request_id: this.requestId, turn_id: this.turnId, seq: this.seq, event };
    this.seq += 1;
    return this.notify(params);
  }

  /** A delta of any length, as as many events as `event_bytes` needs. */
  async delta(type: "message_delta" | "reasoning_delta", itemId: string, text: string) {
    for (const piece of splitUtf8(text, EVENT_TEXT_BYTES))
      await this.emit({ type, item_id: itemId, text: piece });
  }

  async output(itemId: string, stream: "stdout" | "stderr", text: string) {
    for (const piece of splitUtf8(text, EVENT_TEXT_BYTES))
      await this.emit({ type: "tool_output_delta", item_id: itemId, stream, text: piece });
  }
}

/**
 * Text budget of one event. JSON escaping can make a text up to six times its UTF-8 size (a
 * control character becomes `\u0000`), so a piece of `event_bytes / 6` always encodes within
 * `event_bytes`.
 */
export const EVENT_TEXT_BYTES = Math.floor(TURN_EXTENSION.event_bytes / 6);

/** Text that JSON encodes as itself: printable ASCII without `"` and `\\`. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The bytes `text` takes inside a JSON string (without its quotes), exactly: most model text is
 * plain ASCII, measured without building its encoding.
 */
export function jsonTextBytes(text: string): number {
  if (PLAIN_JSON.test(text)) return text.length;
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a code point. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text.length > 0 ? [text] : [];
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) ?? 0;
    const units = code > 0xffff ? 2 : 1;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) {
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
