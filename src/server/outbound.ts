import { log } from "../process/log.js";
import { DEFAULT_MESSAGES, type ErrorCode, ProtocolError } from "../protocol/codes.js";
import { LIMITS } from "../protocol/constants.js";
import { encodeError, encodeResult, errorObject } from "../protocol/envelope.js";
import { safeParse } from "../protocol/first-parse.js";
import {
  METHODS,
  type MethodName,
  NOTIFICATIONS,
  type NotificationName,
  type NotificationParamsOf,
} from "../protocol/methods.js";
import { utf8Length } from "../protocol/paging.js";
import { checkWire } from "../protocol/raw-json.js";
import type { NextStep } from "../protocol/recovery.js";
import { checkInitializeResult } from "../protocol/schemas/initialize-check.js";
import { checkDeltaParams } from "../protocol/schemas/turn-delta-check.js";
import type { ServerState } from "./state.js";
import { StatusLines } from "./status-line.js";
import type { FrameKind } from "./writer.js";

/**
 * A frame as data: exactly what its line encodes (a result's RawJson still RawJson). The
 * in-process engine face (engine-face.ts) reads this instead of parsing the line back.
 */
export type OutboundFrame =
  | { id: string; result: unknown }
  | { id: string | null; error: ReturnType<typeof errorObject> }
  | { method: NotificationName; params: unknown };

/**
 * Writes one encoded frame (with its LF) of a kind (an answer, or an event its producer awaits),
 * given also as data; resolves when the output buffer has room again.
 */
export type FrameSink = (line: string, kind: FrameKind, frame: OutboundFrame) => Promise<void>;

/** A notification the child refused to write: always a bug of the code that asked for it. */
class NotificationRefused extends Error {
  override readonly name = "NotificationRefused";
}

/**
 * Every frame the child writes goes through here: results and notifications are checked against
 * their schemas, and no frame over `frame_bytes` is ever written.
 */
export class Outbound {
  private readonly statusLines = new StatusLines();

  constructor(
    private readonly sink: FrameSink,
    private readonly state: ServerState,
  ) {}

  result(id: string, method: MethodName, result: unknown): void {
    // `status`, pipelined by the thousand, takes an exact fast check; all else the schema.
    const fast = method === "status" ? this.statusLines.line(id, result) : null;
    if (fast !== null) return this.answer(id, method, fast, result);
    // `initialize` too: its schema's build, for the one result a child checks, was most of an
    // ACP session's engine start (initialize-check.ts); what the check leaves, the schema decides.
    const initialize = method === "initialize" ? checkInitializeResult(result) : null;
    if (initialize !== null)
      return this.answer(id, method, encodeResult(id, initialize, false), initialize);
    // Raw records (session.history) are checked by their head and written as stored.
    const checked = checkWire(METHODS[method].result, result);
    if (!checked.ok) {
      log("error", `${method} produced a result outside its schema`);
      log("debug", JSON.stringify(checked.issues));
      return this.error(id, "internal_error");
    }
    this.answer(id, method, encodeResult(id, checked.value, checked.raw), checked.value);
  }

  /** Writes a checked result's frame (`value` is what `line` encodes), within the frame bound. */
  private answer(id: string, method: MethodName, line: string, value: unknown): void {
    // UTF-16 units: at most 3 bytes each, so a short line needs no exact count.
    if (line.length * 3 > LIMITS.frame_bytes && utf8Length(line) - 1 > LIMITS.frame_bytes) {
      log("error", `${method} produced a result over the frame byte limit`);
      return this.error(id, "internal_error");
    }
    void this.sink(line, "answer", { id, result: value });
  }

  error(
    id: string | null,
    code: ErrorCode,
    message = DEFAULT_MESSAGES[code],
    next: NextStep | null = null,
  ): void {
    void this.sink(encodeError(id, code, message, next), "answer", {
      id,
      error: errorObject(code, message, next),
    });
  }

  /**
   * A handler's failure: its ProtocolError (with its next step only where `errors.recovery` was
   * negotiated), or `internal_error` (logged) for anything else.
   */
  failure(id: string, method: string, error: unknown): void {
    if (error instanceof ProtocolError) {
      const next = this.state.negotiated.has("errors.recovery") ? error.next : null;
      return this.error(id, error.code, error.message, next);
    }
    log("error", `${method} failed unexpectedly`);
    log("debug", error instanceof Error ? (error.stack ?? error.message) : String(error));
    this.error(id, "internal_error");
  }

  /** Checks and writes a notification; throws NotificationRefused, writing nothing, if bad. */
  notification<N extends NotificationName>(
    name: N,
    params: NotificationParamsOf<N>,
    requestId: string | null,
  ): Promise<void> {
    const spec = NOTIFICATIONS[name];
    if (!this.state.negotiated.has(spec.capability))
      return refuse(`${name} without the ${spec.capability} capability`);
    // Deltas, most of a turn's events, take an exact fast check; all else the schema.
    let data: unknown = name === "turn.event" ? checkDeltaParams(params) : null;
    if (data === null) {
      const checked = safeParse(spec.params, params);
      if (!checked.success) {
        log("debug", JSON.stringify(checked.error.issues));
        return refuse(`${name} params outside the notification schema`);
      }
      data = checked.data;
    }
    const owner = spec.request === null ? null : (data as { request_id: string }).request_id;
    if (owner !== requestId) return refuse(`${name} for another request than its own`);
    const line = `${JSON.stringify({ method: name, params: data })}\n`;
    // UTF-16 units: at most 3 bytes each, so a short line needs no exact count.
    if (line.length * 3 > LIMITS.frame_bytes && utf8Length(line) - 1 > LIMITS.frame_bytes)
      return refuse(`${name} over the frame byte limit`);
    return this.sink(line, "event", { method: name, params: data });
  }
}

function refuse(what: string): Promise<never> {
  log("error", `refused to write ${what}`);
  return Promise.reject(new NotificationRefused(`refused to write ${what}`));
}
