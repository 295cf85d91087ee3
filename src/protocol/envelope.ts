import type { ErrorCode } from "./codes.js";
import { isRequestId } from "./constants.js";
import { wireText } from "./raw-json.js";
import type { NextStep } from "./recovery.js";
import { parseJson } from "./well-formed.js";

export interface Request {
  id: string;
  method: string;
  params: Record<string, unknown>;
}

export type Decoded =
  | { ok: true; request: Request }
  | { ok: false; id: string | null; code: ErrorCode };

const utf8 = new TextDecoder("utf-8", { fatal: true });
const ENVELOPE_KEYS = ["id", "method", "params"];

/** Decodes one inbound frame into a request envelope, or the error it must be answered with. */
export function decodeFrame(bytes: Uint8Array): Decoded {
  let value: unknown;
  try {
    // A lone surrogate escape in a string becomes U+FFFD: nothing the child writes holds one.
    value = parseJson(utf8.decode(bytes));
  } catch {
    return { ok: false, id: null, code: "invalid_request" };
  }
  if (!isPlainObject(value)) return { ok: false, id: null, code: "invalid_request" };
  const id = isRequestId(value.id) ? value.id : null;
  const keys = Object.keys(value);
  const exactKeys =
    keys.length === ENVELOPE_KEYS.length && ENVELOPE_KEYS.every((k) => Object.hasOwn(value, k));
  if (
    !exactKeys ||
    id === null ||
    typeof value.method !== "string" ||
    !isPlainObject(value.params)
  ) {
    return { ok: false, id, code: "invalid_request" };
  }
  // The parsed object is the request: exactly its three keys, each checked above.
  return { ok: true, request: value as unknown as Request };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A success frame; a RawJson anywhere in `result` is written verbatim (see raw-json.ts). `raw`:
 * whether it holds one, when the caller already knows (checkWire says), else it is looked for.
 */
export function encodeResult(id: string, result: unknown, raw?: boolean): string {
  if (raw === false) return `${JSON.stringify({ id, result })}\n`;
  return `${wireText({ id, result })}\n`;
}

export function encodeError(
  id: string | null,
  code: ErrorCode,
  message: string,
  next: NextStep | null = null,
): string {
  return `${JSON.stringify({ id, error: errorObject(code, message, next) })}\n`;
}

/** `{code, message}`, plus `recovery` and `provider` when a next step is given (negotiated). */
export function errorObject(
  code: ErrorCode,
  message: string,
  next: NextStep | null,
): { code: ErrorCode; message: string; recovery?: NextStep["recovery"]; provider?: string | null } {
  return next
    ? { code, message, recovery: next.recovery, provider: next.provider }
    : { code, message };
}
