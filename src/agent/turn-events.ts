import type { TurnEventBody, TurnEventParams } from "../protocol/schemas/turns.js";
import { splitUtf8 } from "../protocol/text-cut.js";
import {
  CUT_MARK,
  EVENT_BYTES,
  EVENT_TEXT_BYTES,
  eventFrameBytes,
  fitEvent,
  omittedInput,
  type Shrinkable,
  TITLE_MARK,
} from "./event-bounds.js";

/** How the engine hands one event to the client; awaiting it is back-pressure. */
type Notify = (params: TurnEventParams) => Promise<void>;

type EventOf<T extends TurnEventBody["type"]> = Extract<TurnEventBody, { type: T }>;

/**
 * The turn's outbound events: gapless `seq` from 0, the turn's IDs on every event, and every
 * event's whole frame within `event_bytes` (event-bounds.ts): long texts are split over deltas,
 * and the texts of the other events are cut to fit.
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

  /**
   * `tool_call`: the input whole when it is at most one delta's text budget (as JSON) and the
   * event fits, else its size; then the title cut.
   */
  toolCall(event: EventOf<"tool_call">): Promise<void> {
    let fitted = event;
    const omitted = omittedInput(event.input);
    if (omitted.omitted_bytes > EVENT_TEXT_BYTES || this.frameBytes(fitted) > EVENT_BYTES)
      fitted = { ...fitted, input: omitted };
    return this.emit(this.fit(fitted, [{ key: "title", mark: TITLE_MARK }]).event);
  }

  /** `approval_requested`, its diff, command, title (and path) cut to fit (then `truncated`). */
  approvalRequested(event: EventOf<"approval_requested">): Promise<void> {
    const { event: fitted, cut } = this.fit(event, [
      { key: "diff", mark: CUT_MARK },
      { key: "command", mark: CUT_MARK },
      { key: "title", mark: TITLE_MARK },
      // Last, and only for a path past the system's 4096-byte bound (its write fails anyway).
      { key: "path", mark: TITLE_MARK },
    ]);
    return this.emit({ ...fitted, truncated: event.truncated || cut });
  }

  /** `tool_done`, its diff and summary cut to fit. */
  toolDone(event: EventOf<"tool_done">): Promise<void> {
    const fields: Shrinkable<EventOf<"tool_done">>[] = [
      { key: "diff", mark: CUT_MARK },
      { key: "summary", mark: CUT_MARK },
    ];
    return this.emit(this.fit(event, fields).event);
  }

  /** `steer_applied`, its text cut to fit (the history and the model have it whole). */
  steerApplied(steerId: string, text: string): Promise<void> {
    const event: EventOf<"steer_applied"> = { type: "steer_applied", steer_id: steerId, text };
    return this.emit(this.fit(event, [{ key: "text", mark: CUT_MARK }]).event);
  }

  private fit<E extends TurnEventBody>(event: E, fields: Shrinkable<E>[]) {
    return fitEvent(event, fields, (e) => this.frameBytes(e));
  }

  private frameBytes(event: TurnEventBody): number {
    return eventFrameBytes({ request_id: this.requestId, turn_id: this.turnId, event });
  }
}
