/**
 * What an editor sees of hooks (docs/acp.md, "Hooks"). ACP has no hook of its own, so each hook
 * run is shown as a tool call of its own (a command the user configured runs, and a slow one,
 * a linter at `Stop` say, shows why the agent waits): `hook_started` is a `tool_call` (kind
 * `execute`, `in_progress`), `hook_done` its `tool_call_update`. A prompt a `UserPromptSubmit`
 * hook blocks (`prompt_blocked`: nothing was written or sent) answers ACP's stop reason
 * `refusal` (the prompt is not part of the conversation), after an agent message with the reason.
 */
import type { SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import { DEFAULT_MESSAGES } from "../protocol/codes.js";
import type { TurnEventBody, TurnResult } from "../protocol/schemas/turns.js";
import { fitChars } from "../protocol/text-cut.js";
import { EngineError } from "../server/engine-face.js";

type HookStarted = Extract<TurnEventBody, { type: "hook_started" }>;
type HookDone = Extract<TurnEventBody, { type: "hook_done" }>;

/** A title's longest command (the whole command is in `rawInput`). */
const TITLE_COMMAND_CHARS = 80;

/** The tool call ID of a hook run: apart from every model call's item ID (no `:` in those). */
export const hookCallId = (hookId: string) => `hook:${hookId}`;

export function hookStartedUpdate(event: HookStarted): SessionUpdate {
  return {
    sessionUpdate: "tool_call",
    toolCallId: hookCallId(event.hook_id),
    // One line: a multi-line command (a script pasted inline) would break the title.
    title: `${event.event} hook: ${fitChars(event.command.replace(/\s+/g, " "), TITLE_COMMAND_CHARS)}`,
    kind: "execute",
    status: "in_progress",
    rawInput: { hook_event_name: event.event, command: event.command },
  };
}

const SAID: Record<HookDone["status"], string> = {
  ok: "",
  blocked: "Blocked",
  failed: "Failed",
  timed_out: "Timed out",
};

/**
 * A hook's end. `ok` and `blocked` are `completed` (the hook ran and decided: a block is its
 * verdict, not an error); `failed` and `timed_out` are `failed`. Its message, if any, is the
 * content; our own status is in `rawOutput`.
 */
export function hookDoneUpdate(event: HookDone): SessionUpdate {
  const said = [SAID[event.status], event.message].filter((part) => part !== "").join(": ");
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: hookCallId(event.hook_id),
    status: event.status === "ok" || event.status === "blocked" ? "completed" : "failed",
    ...(said ? { content: [{ type: "content", content: { type: "text", text: said } }] } : {}),
    rawOutput: { status: event.status, duration_ms: event.duration_ms },
  };
}

/** A turn's result, or the reason a `UserPromptSubmit` hook blocked its prompt. */
export async function resultOrBlocked(
  result: Promise<TurnResult>,
): Promise<{ result: TurnResult } | { blocked: string }> {
  try {
    return { result: await result };
  } catch (error) {
    if (error instanceof EngineError && error.code === "prompt_blocked")
      return { blocked: error.message };
    throw error;
  }
}

/** What a blocked prompt shows (one agent message: the hook's reason) and answers. */
export function blockedAnswer(reason: string): { update: SessionUpdate; stopReason: StopReason } {
  const fixed = DEFAULT_MESSAGES.prompt_blocked;
  // A hook that said nothing leaves our fixed message, which already says what happened.
  const text = reason === fixed ? fixed : `A UserPromptSubmit hook blocked this prompt: ${reason}`;
  return {
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
    stopReason: "refusal",
  };
}
