import type { SessionUpdate, StopReason, ToolCallContent } from "@agentclientprotocol/sdk";
import type { TurnEventBody, TurnResult } from "../protocol/schemas/turns.js";
import { TURN_EXTENSION } from "../protocol/schemas/turns.js";
import { roundUsd } from "../protocol/usd.js";
import { hookDoneUpdate, hookStartedUpdate } from "./hook-updates.js";
import { planUpdate } from "./plan-update.js";
import { AGENT_TOOL, SubagentView } from "./subagent-view.js";
import { diffContent, textContent, toolKind, toolLocations } from "./tool-calls.js";

/**
 * Our turn events as ACP `session/update`s, for one turn (docs/acp.md, the mapping table).
 * Stateful only for a command's output: ACP's `tool_call_update` content replaces the whole
 * content, so the output so far is sent again with each piece, up to `tool_output_bytes` (what
 * the model itself is shown); the rest comes with the tool's result.
 */
export class TurnUpdates {
  private readonly output = new Map<string, { text: string; full: boolean }>();
  /** Calls whose command runs in the client's terminal, with its id: the terminal shows the output. */
  private readonly terminals = new Map<string, string>();
  /** The subagents of this turn (subagent-view.ts). */
  private readonly subagents = new SubagentView();

  /**
   * @param cost the session's known cost in USD before this turn: each usage event's `cost_usd`
   * adds to it, and `usage_update` carries the sum (ACP's cumulative `cost`).
   */
  constructor(
    private readonly cwd: string,
    public cost = 0,
  ) {}

  map(event: TurnEventBody): SessionUpdate[] {
    switch (event.type) {
      case "message_delta":
        return [
          { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } },
        ];
      case "reasoning_delta":
        return [
          { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } },
        ];
      case "tool_call":
        if (event.tool === AGENT_TOOL) return this.subagents.called(event);
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.item_id,
            title: event.title,
            kind: toolKind(event.tool),
            status: "pending",
            locations: toolLocations(this.cwd, event.input),
            rawInput: event.input,
          },
        ];
      case "approval_resolved":
        return [];
      case "steer_applied":
        // Shown where it joined the turn, as a load replays its record (history-replay.ts).
        return [
          { sessionUpdate: "user_message_chunk", content: { type: "text", text: event.text } },
        ];
      case "tool_output_delta":
        return this.outputPiece(event.item_id, event.text);
      case "tool_done":
        if (this.subagents.owns(event.item_id)) return this.subagents.done(event);
        return [this.done(event)];
      case "approval_requested":
        // A subagent's call is announced before the permission request about it.
        return this.subagents.announce(event, this.cwd);
      case "subagent_event":
        return this.subagentEvent(event);
      case "usage": {
        const known = typeof event.cost_usd === "number";
        if (known) this.cost = roundUsd(this.cost + (event.cost_usd as number));
        return event.context_window === null
          ? []
          : [
              {
                sessionUpdate: "usage_update",
                used: event.input_tokens + event.output_tokens,
                size: event.context_window,
                // The known total: a call of unknown price (no cost_usd) adds nothing to it.
                ...(known ? { cost: { amount: this.cost, currency: "USD" } } : {}),
              },
            ];
      }
      case "retry":
        // A thought, not the reply: the wait is visible without entering the answer's text.
        return [
          {
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: retryLine(event) },
          },
        ];
      case "plan":
        return planUpdate(event.plan);
      case "hook_started":
        return [hookStartedUpdate(event)];
      case "hook_done":
        return [hookDoneUpdate(event)];
      default:
        // turn_started, message_done, compacted: nothing an ACP client shows as an update.
        return [];
    }
  }

  /**
   * A call starts running: `pending` (announced, maybe awaiting approval) becomes `in_progress`.
   * Null for a subagent's call the editor was never told of (its progress shows it).
   */
  started(itemId: string): SessionUpdate | null {
    if (this.subagents.hidden(itemId)) return null;
    return { sessionUpdate: "tool_call_update", toolCallId: itemId, status: "in_progress" };
  }

  /** A call's command runs in the client's terminal `terminalId` (client-tools.ts). */
  terminal(itemId: string, terminalId: string): SessionUpdate | null {
    if (this.subagents.hidden(itemId)) return null;
    this.terminals.set(itemId, terminalId);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: itemId,
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    };
  }

  /** The title a subagent's permission request shows: its description, then the call's title. */
  approvalTitle(event: Extract<TurnEventBody, { type: "approval_requested" }>): string {
    return this.subagents.approvalTitle(event);
  }

  /**
   * A subagent's event: the `agent` call's progress; a call announced for its approval also
   * runs and ends as the parent's calls do. Its cost is the session's too (`usage_update`'s
   * `cost`), though its tokens are not the parent's context.
   */
  private subagentEvent(event: Extract<TurnEventBody, { type: "subagent_event" }>) {
    const inner = event.event;
    if (inner.type === "usage" && typeof inner.cost_usd === "number")
      this.cost = roundUsd(this.cost + inner.cost_usd);
    const own =
      (inner.type === "tool_output_delta" || inner.type === "tool_done") &&
      this.subagents.isSurfaced(inner.item_id)
        ? this.map(inner)
        : [];
    return [...own, ...this.subagents.inner(event)];
  }

  private outputPiece(itemId: string, text: string): SessionUpdate[] {
    // The editor shows the terminal's own output; text content would replace the terminal.
    if (this.terminals.has(itemId)) return [];
    const seen = this.output.get(itemId) ?? { text: "", full: false };
    this.output.set(itemId, seen);
    if (seen.full) return [];
    const room = TURN_EXTENSION.tool_output_bytes - Buffer.byteLength(seen.text);
    if (Buffer.byteLength(text) > room) {
      seen.full = true;
      return [];
    }
    seen.text += text;
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: itemId,
        status: "in_progress",
        content: [textContent(seen.text)],
      },
    ];
  }

  private done(event: Extract<TurnEventBody, { type: "tool_done" }>): SessionUpdate {
    const output = this.output.get(event.item_id)?.text;
    this.output.delete(event.item_id);
    const terminalId = this.terminals.get(event.item_id);
    this.terminals.delete(event.item_id);
    const content = doneContent(this.cwd, event.summary, event.diff, output);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: event.item_id,
      status: event.status === "completed" ? "completed" : "failed",
      content: terminalId ? [{ type: "terminal", terminalId }, ...content] : content,
      rawOutput: { status: event.status, summary: event.summary, exit_code: event.exit_code },
    };
  }
}

/** A finished tool's content: its diff when it has one, else its output, then its summary. */
function doneContent(
  cwd: string,
  summary: string,
  diff: string | null,
  output?: string,
): ToolCallContent[] {
  const diffs = diff ? diffContent(cwd, diff) : [];
  const content: ToolCallContent[] = [...diffs];
  if (output) content.push(textContent(output));
  if (summary) content.push(textContent(summary));
  return content;
}

/** Our turn result as an ACP stop reason; a failed turn has none (it is answered as an error). */
export function stopReason(result: TurnResult): StopReason | null {
  if (result.status === "interrupted") return "cancelled";
  if (result.status === "failed") return null;
  return result.stop_reason === "max_steps" ? "max_turn_requests" : result.stop_reason;
}

type RetryEvent = Extract<TurnEventBody, { type: "retry" }>;

const RETRY_REASONS: Record<RetryEvent["reason"], string> = {
  rate_limited: "the provider is rate limiting",
  remote_unavailable: "the provider is unavailable",
};

/**
 * "Retrying in 2 s (the provider is rate limiting)…", on a line of its own: editors join thought
 * chunks, so it must not run into reasoning text before or after it.
 */
export function retryLine(event: RetryEvent): string {
  const seconds = event.delay_ms / 1000;
  const when =
    event.delay_ms === 0
      ? "Retrying now"
      : `Retrying in ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  return `\n${when} (${RETRY_REASONS[event.reason]}, attempt ${event.attempt})…\n`;
}
