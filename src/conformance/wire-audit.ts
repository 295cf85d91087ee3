import { isRequestId } from "../protocol/constants.js";
import { isPlainObject } from "../protocol/envelope.js";
import {
  isMethodName,
  isNotificationName,
  METHODS,
  type MethodSpec,
  NOTIFICATIONS,
} from "../protocol/methods.js";
import { ErrorFrame, NotificationFrame, SuccessFrame } from "../protocol/schemas/common.js";
import { strictJsonProblem } from "../protocol/well-formed.js";
import type { Frame } from "./frame.js";
import { unsafeMessage } from "./message-leaks.js";

/**
 * Checks that hold for every exchange with any child, whatever the case was about: no more
 * responses to an ID than requests sent with it, no response to an ID never sent, every frame
 * inside the envelope schema, every result inside its method's result schema, every
 * notification inside its own schema and belonging to a request still running (sent with the
 * notification's request method, not yet answered), and no error message naming a path, file,
 * URL or a forbidden word (credentials, history content), and every frame JSON that a strict
 * UTF-8 decoder accepts (no lone surrogate, raw or escaped: serde_json and Swift refuse one).
 * The conformance runner applies it to every case; the fuzzer applies it to every batch.
 */
interface AuditInput {
  /** What was sent: every line that carried a valid ID (see `requestsIn`). */
  sent: SentRequest[];
  /** Every frame the child wrote, in order. */
  received: Frame[];
  /** Words no error message may contain: the sandbox paths, planted secrets, history text. */
  forbidden?: string[];
  /** Words no frame at all may contain (credentials). */
  secrets?: string[];
}

/** A sent line with a valid ID, and its method when the envelope was well-formed. */
export interface SentRequest {
  id: string;
  method: string | null;
}

/** The requests in a chunk of sent text (one line each; lines without a valid ID are skipped). */
export function requestsIn(text: string): SentRequest[] {
  const requests: SentRequest[] = [];
  for (const line of text.split("\n")) {
    const id = echoedId(line);
    if (id !== null) requests.push({ id, method: envelopeMethod(line) });
  }
  return requests;
}

/** The ID a response to this line must carry (null when the line has no valid ID). */
function echoedId(line: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isPlainObject(value)) return null;
  return isRequestId(value.id) ? value.id : null;
}

/** The method of a well-formed envelope (exactly id, method, params), else null. */
function envelopeMethod(line: string): string | null {
  try {
    const value = JSON.parse(line) as unknown;
    if (!isPlainObject(value) || Object.keys(value).length !== 3) return null;
    if (!isPlainObject(value.params) || !isRequestId(value.id)) return null;
    return typeof value.method === "string" ? value.method : null;
  } catch {
    return null;
  }
}

/** Returns every violation found, as readable sentences (empty when the exchange is clean). */
export function auditWire(input: AuditInput): string[] {
  const problems: string[] = [];
  const sentCount = new Map<string, number>();
  const methods = new Map<string, string | null>();
  for (const { id, method } of input.sent) {
    sentCount.set(id, (sentCount.get(id) ?? 0) + 1);
    // A success answers the first well-formed request with that ID (later ones are duplicates).
    if (!methods.get(id)) methods.set(id, method);
  }
  const seen = new Map<string, number>();
  for (const frame of input.received) {
    if (isNotificationFrame(frame)) {
      problems.push(...notificationProblems(frame, input, methods, seen));
      continue;
    }
    problems.push(...frameProblems(frame, input, methods));
    if (frame.id === null || typeof frame.id !== "string") continue;
    const count = (seen.get(frame.id) ?? 0) + 1;
    seen.set(frame.id, count);
    const expected = sentCount.get(frame.id) ?? 0;
    if (count > expected) {
      problems.push(
        expected === 0
          ? `response to ID "${frame.id}", which was never sent`
          : `${count} responses to ID "${frame.id}", sent ${expected} time(s)`,
      );
    }
  }
  return problems;
}

/** A frame the child wrote without an `id` but with a `method`: a notification. */
function isNotificationFrame(frame: Frame): boolean {
  return !("id" in frame) && "method" in frame;
}

/**
 * A notification is `{"method", "params"}` of a known notification, inside its params schema,
 * and names (by `params.request_id`) a request of its method that has not been answered yet:
 * every event of a turn comes before the turn's result.
 */
function notificationProblems(
  frame: Frame,
  input: AuditInput,
  methods: Map<string, string | null>,
  answered: Map<string, number>,
): string[] {
  const text = JSON.stringify(frame);
  const problems = strictProblems(text);
  for (const secret of input.secrets ?? []) {
    if (secret && text.includes(secret))
      problems.push(`a notification carries a credential: ${text}`);
  }
  const envelope = NotificationFrame().safeParse(frame);
  if (!envelope.success) return [...problems, `bad notification frame: ${text}`];
  const { method, params } = envelope.data;
  if (!isNotificationName(method))
    return [...problems, `unknown notification "${method}": ${text}`];
  const spec = NOTIFICATIONS[method];
  const checked = spec.params.safeParse(params);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return [
      ...problems,
      `${method} params outside its schema (${issue?.path.join(".")}: ${issue?.message}): ${text}`,
    ];
  }
  // A notification about the child itself (mcp.changed) belongs to no request.
  if (spec.request === null) return problems;
  const owner = params.request_id;
  if (typeof owner !== "string" || methods.get(owner) !== spec.request) {
    problems.push(`${method} names no ${spec.request} request that was sent: ${text}`);
  } else if ((answered.get(owner) ?? 0) > 0) {
    problems.push(`${method} after the response to its request "${owner}": ${text}`);
  }
  return problems;
}

/**
 * `errors.recovery` (extensions.md): a next step only on the two first-run codes, and then with
 * its `provider` (whether it was negotiated is the cases' check, errors.recovery.*).
 */
function nextStepProblem(error: Record<string, unknown>): string | null {
  const hasStep = "recovery" in error || "provider" in error;
  if (!hasStep) return null;
  if (error.code !== "model_unavailable" && error.code !== "authentication_unavailable")
    return `a next step on ${String(error.code)}, which never carries one`;
  if (!("recovery" in error && "provider" in error))
    return "a next step without recovery and provider";
  return null;
}

function frameProblems(
  frame: Frame,
  input: AuditInput,
  methods: Map<string, string | null>,
): string[] {
  const text = frameText(frame);
  // A frame too deep to print again was parsed from the child's line, so it was JSON; its
  // strings cannot be walked without the recursion that failed (a deep history event's content).
  const problems = text === UNPRINTABLE(frame) ? [] : strictProblems(text);
  for (const secret of input.secrets ?? []) {
    if (secret && text.includes(secret)) problems.push(`a frame carries a credential: ${text}`);
  }
  if ("error" in frame) {
    if (!ErrorFrame().safeParse(frame).success) return [...problems, `bad error frame: ${text}`];
    const unsafe = unsafeMessage(frame.error?.message ?? "", input.forbidden ?? []);
    if (unsafe) problems.push(`error message carries ${unsafe}: ${text}`);
    const step = nextStepProblem(frame.error as Record<string, unknown>);
    if (step) problems.push(`${step}: ${text}`);
    return problems;
  }
  if (!SuccessFrame().safeParse(frame).success) return [...problems, `bad frame: ${text}`];
  const method = methods.get(frame.id as string);
  if (!method || !isMethodName(method)) {
    return [...problems, `success for an unknown method "${method}": ${text}`];
  }
  const spec: MethodSpec = METHODS[method];
  const checked = spec.result.safeParse(frame.result);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    problems.push(
      `${method} result outside its schema (${issue?.path.join(".")}: ${issue?.message}): ${text}`,
    );
  }
  return problems;
}

/** A frame (as JSON.stringify wrote it again: an escape for each lone surrogate) a strict decoder refuses. */
function strictProblems(text: string): string[] {
  const problem = strictJsonProblem(text);
  return problem === null
    ? []
    : [`a frame a strict UTF-8 JSON decoder refuses (${problem}): ${text}`];
}

/**
 * The frame as text for the checks and reports. A history event may nest deeper than
 * JSON.stringify can recurse (JSON.parse, which read it, is iterative); such a frame is then
 * described by its envelope alone (the event content is never a credential's place).
 */
function frameText(frame: Frame): string {
  try {
    return JSON.stringify(frame);
  } catch {
    return UNPRINTABLE(frame);
  }
}

const UNPRINTABLE = (frame: Frame) =>
  `(a frame too deeply nested to print, id ${JSON.stringify(frame.id)})`;
