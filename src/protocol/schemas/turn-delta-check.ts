/**
 * A fast, exact check of the three delta events (`message_delta`, `reasoning_delta`,
 * `tool_output_delta`), the bulk of a turn's notifications: at a hundred thousand deltas a
 * second the full `TurnEventParams` parse was a large share of the child's time. It checks what
 * that schema checks for these shapes (strict keys, ID patterns, a non-negative integer seq,
 * the `event_bytes` bound of a delta's text) and returns the params rebuilt in the schema's key
 * order, as the parse would; anything else (another event, or one it does not accept) returns
 * null and goes to the schema itself, which decides. test/protocol/turn-delta-check.test.ts
 * holds it to the schema's verdicts.
 */
import { REQUEST_ID_PATTERN } from "../constants.js";
import { utf8Length } from "../raw-json.js";
import { TURN_EXTENSION, TURN_ID_PATTERN, type TurnEventParams } from "./turns.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const hasOnly = (value: Record<string, unknown>, count: number) =>
  Object.keys(value).length === count;

const deltaText = (text: unknown): text is string =>
  typeof text === "string" &&
  // Cheap first: a text of at most event_bytes / 3 code units is within event_bytes anyway.
  (text.length * 3 <= TURN_EXTENSION.event_bytes || utf8Length(text) <= TURN_EXTENSION.event_bytes);

const itemId = (id: unknown): id is string => typeof id === "string" && TURN_ID_PATTERN.test(id);

type DeltaEvent = Extract<
  TurnEventParams["event"],
  { type: "message_delta" | "reasoning_delta" | "tool_output_delta" }
>;

function deltaEvent(event: unknown): DeltaEvent | null {
  if (!isRecord(event) || !itemId(event.item_id) || !deltaText(event.text)) return null;
  const { type, item_id, text } = event;
  if (type === "message_delta" || type === "reasoning_delta")
    return hasOnly(event, 3) ? { type, item_id, text } : null;
  if (type !== "tool_output_delta" || !hasOnly(event, 4)) return null;
  const stream = event.stream;
  return stream === "stdout" || stream === "stderr" ? { type, item_id, stream, text } : null;
}

/** The params as `TurnEventParams` parses them when they carry a valid delta, else null. */
export function checkDeltaParams(params: unknown): TurnEventParams | null {
  if (!isRecord(params) || !hasOnly(params, 4)) return null;
  const { request_id, turn_id, seq } = params;
  if (typeof request_id !== "string" || !REQUEST_ID_PATTERN.test(request_id)) return null;
  if (typeof turn_id !== "string" || !TURN_ID_PATTERN.test(turn_id)) return null;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return null;
  const event = deltaEvent(params.event);
  return event ? { request_id, turn_id, seq, event } : null;
}
