import { EVENT_TEXT_BYTES, splitUtf8 } from "./turn-events.js";

/** Marks a text cut to fit one event. */
export const CUT_MARK = "\n[... cut to fit the event size]";

/** A text (a diff, a summary, a command) cut to fit one event, marked when it was cut. */
export function boundedEventText(text: string): string {
  const [head] = splitUtf8(text, EVENT_TEXT_BYTES - CUT_MARK.length);
  return head === undefined || head.length === text.length ? text : head + CUT_MARK;
}

/**
 * A tool input as shown in the `tool_call` event: whole when it fits one event, else replaced by
 * its size (a `write_file` of a large file); the record and the tool get the whole input.
 */
export function boundedInput(input: unknown): unknown {
  const bytes = Buffer.byteLength(JSON.stringify(input) ?? "null");
  return bytes <= EVENT_TEXT_BYTES ? input : { omitted_bytes: bytes };
}
