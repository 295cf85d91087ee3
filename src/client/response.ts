import type { ErrorCode } from "../protocol/codes.js";
import type { NextStep } from "../protocol/recovery.js";
import { ErrorFrame, NotificationFrame, SuccessFrame } from "../protocol/schemas/common.js";

/** One decoded inbound frame, or why it is not a protocol frame. */
export type Response =
  | { kind: "result"; id: string; result: Record<string, unknown> }
  | { kind: "error"; id: string | null; code: ErrorCode; message: string; next: NextStep | null }
  | { kind: "notification"; method: string; params: Record<string, unknown> }
  | { kind: "malformed"; reason: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes one line from the child strictly: exactly `{id, result}`, `{id, error}` or a
 * notification `{method, params}` (whether its method and params are valid is the caller's).
 */
export function decodeResponse(bytes: Uint8Array): Response {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return { kind: "malformed", reason: "a line that is not UTF-8 JSON" };
  }
  const success = SuccessFrame().safeParse(value);
  if (success.success) return { kind: "result", id: success.data.id, result: success.data.result };
  const failure = ErrorFrame().safeParse(value);
  if (failure.success) {
    const { id, error } = failure.data;
    const next =
      error.recovery === undefined
        ? null
        : { recovery: error.recovery, provider: error.provider ?? null };
    return { kind: "error", id, code: error.code, message: error.message, next };
  }
  const notification = NotificationFrame().safeParse(value);
  if (notification.success) return { kind: "notification", ...notification.data };
  return { kind: "malformed", reason: "a frame that is not a response envelope" };
}
