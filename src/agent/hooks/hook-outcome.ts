/**
 * What one hook's run decides, read as Claude Code reads it (docs/hooks.md, "Decisions"): exit 0
 * goes on (its stdout, when JSON, may decide; when not, it is context for `SessionStart` and
 * `UserPromptSubmit`), exit 2 blocks with stderr as the reason, any other exit is a failure that
 * blocks nothing; and how the outcomes of parallel hooks combine (deny > ask > allow).
 */
import type { HookEvent } from "../../store/hooks-settings.js";
import type { HookEnd } from "./hook-process.js";

export type PermissionDecision = "allow" | "deny" | "ask";
export type HookStatus = "ok" | "blocked" | "failed" | "timed_out";

export interface HookOutcome {
  status: HookStatus;
  /** The event's step is blocked (exit 2, or `decision: "block"`). */
  block: boolean;
  /** Why, for the model (or the user): stderr of exit 2, or the JSON `reason`. */
  reason: string;
  /** `PreToolUse`'s `hookSpecificOutput.permissionDecision` (or the older `decision`). */
  permission: PermissionDecision | null;
  /** Text added to the model's context (`additionalContext`, or plain stdout where it counts). */
  context: string;
  /** What the user is told: a failure's stderr, or exit 2 of an event that blocks nothing. */
  note: string;
}

/** The events whose plain stdout on exit 0 is context for the model, as in Claude Code. */
const STDOUT_IS_CONTEXT: readonly HookEvent[] = ["SessionStart", "UserPromptSubmit"];

export function outcomeOf(event: HookEvent, end: HookEnd): HookOutcome {
  const none: HookOutcome = {
    status: "ok",
    block: false,
    reason: "",
    permission: null,
    context: "",
    note: "",
  };
  if (end.kind === "timed_out") return { ...none, status: "timed_out", note: "timed out" };
  if (end.kind === "interrupted") return { ...none, status: "failed", note: "interrupted" };
  if (end.kind === "not_started") return { ...none, status: "failed", note: "did not start" };
  const stderr = end.stderr.trim();
  if (end.code === 2)
    return { ...none, status: "blocked", block: true, reason: stderr, note: stderr };
  if (end.code !== 0)
    return { ...none, status: "failed", note: stderr || `exit code ${end.code ?? "none"}` };
  const json = jsonOf(end.stdout);
  if (json === null) {
    const context = STDOUT_IS_CONTEXT.includes(event) ? end.stdout.trim() : "";
    return { ...none, context };
  }
  return fromJson(json, none);
}

function fromJson(json: Record<string, unknown>, none: HookOutcome): HookOutcome {
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const reason = text(specific.permissionDecisionReason) || text(json.reason);
  let permission: PermissionDecision | null = null;
  const decided = specific.permissionDecision;
  if (decided === "allow" || decided === "deny" || decided === "ask") permission = decided;
  // Claude Code's older spelling for PreToolUse: `approve` and `block`.
  else if (json.decision === "approve") permission = "allow";
  const block = json.decision === "block" || permission === "deny";
  return {
    ...none,
    status: block ? "blocked" : "ok",
    block,
    reason,
    permission: json.decision === "block" && permission === null ? "deny" : permission,
    context: text(specific.additionalContext),
    note: text(json.systemMessage) || (block ? reason : ""),
  };
}

/** Stdout as a JSON object, or null: plain text (or JSON of another shape) decides nothing. */
function jsonOf(stdout: string): Record<string, unknown> | null {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

const RANK: Record<PermissionDecision, number> = { allow: 1, ask: 2, deny: 3 };

/** The outcomes of one event's parallel hooks as one: any block blocks; deny > ask > allow. */
export function combined(outcomes: readonly HookOutcome[]): HookOutcome {
  let permission: PermissionDecision | null = null;
  for (const o of outcomes)
    if (o.permission && (permission === null || RANK[o.permission] > RANK[permission]))
      permission = o.permission;
  const joined = (pick: (o: HookOutcome) => string) =>
    outcomes
      .map(pick)
      .filter((t) => t !== "")
      .join("\n");
  const block = outcomes.some((o) => o.block);
  return {
    status: block ? "blocked" : "ok",
    block,
    reason: joined((o) => (o.block || o.permission === permission ? o.reason : "")),
    permission,
    context: joined((o) => o.context),
    note: joined((o) => o.note),
  };
}
