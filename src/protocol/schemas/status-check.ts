/**
 * A fast, exact check of a `status` result, the answer a client may pipeline by the thousand:
 * the `StatusResult` parse was about a third of the child's time per round trip. It checks what
 * that schema checks (strict keys, the enums, the ID patterns, a non-negative safe integer) and
 * returns the result rebuilt in the schema's key order, as the parse would; anything it does not
 * accept returns null and goes to the schema itself, which decides.
 * test/protocol/status-check.test.ts holds it to the schema's verdicts.
 */
import { MODEL_ID_PATTERN, REQUEST_ID_PATTERN, SESSION_ID_PATTERN } from "../constants.js";
import { EFFORT_PATTERN } from "./common.js";
import type { StatusResult } from "./lifecycle.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Exactly these own keys, no other. */
function hasExactly(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

const matches = (value: unknown, pattern: RegExp): value is string =>
  typeof value === "string" && pattern.test(value);

const nullableMatch = (value: unknown, pattern: RegExp): value is string | null =>
  value === null || matches(value, pattern);

const STATUS_KEYS = [
  "state",
  "cwd",
  "attachment",
  "selection",
  "worker",
  "active_requests",
  "requests_left",
] as const;

function attachmentOf(value: unknown): StatusResult["attachment"] | undefined {
  if (value === null) return null;
  if (!isRecord(value) || !hasExactly(value, ["session_id", "saved"])) return undefined;
  const { session_id, saved } = value;
  if (!matches(session_id, SESSION_ID_PATTERN) || typeof saved !== "boolean") return undefined;
  return { session_id, saved };
}

function selectionOf(value: unknown): StatusResult["selection"] | undefined {
  if (!isRecord(value) || !hasExactly(value, ["model", "effort"])) return undefined;
  const { model, effort } = value;
  if (!nullableMatch(model, MODEL_ID_PATTERN) || !nullableMatch(effort, EFFORT_PATTERN))
    return undefined;
  return { model, effort };
}

function activeOf(value: unknown): StatusResult["active_requests"] | undefined {
  if (!Array.isArray(value)) return undefined;
  const active: StatusResult["active_requests"] = [];
  for (const item of value) {
    if (!isRecord(item) || !hasExactly(item, ["id", "method"])) return undefined;
    const { id, method } = item;
    if (!matches(id, REQUEST_ID_PATTERN) || typeof method !== "string") return undefined;
    active.push({ id, method });
  }
  return active;
}

/** The result as `StatusResult` parses it when it is a valid one, else null. */
export function checkStatusResult(value: unknown): StatusResult | null {
  if (!isRecord(value) || !hasExactly(value, STATUS_KEYS)) return null;
  const { state, cwd, worker, requests_left } = value;
  if (state !== "uninitialized" && state !== "ready" && state !== "shutting_down") return null;
  if (typeof cwd !== "string" || (worker !== "idle" && worker !== "busy")) return null;
  if (typeof requests_left !== "number" || !Number.isSafeInteger(requests_left)) return null;
  if (requests_left < 0) return null;
  const attachment = attachmentOf(value.attachment);
  const selection = selectionOf(value.selection);
  const active_requests = activeOf(value.active_requests);
  if (attachment === undefined || selection === undefined || active_requests === undefined)
    return null;
  return { state, cwd, attachment, selection, worker, active_requests, requests_left };
}
