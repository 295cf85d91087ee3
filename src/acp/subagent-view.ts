import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { TurnEventBody } from "../protocol/schemas/turns.js";
import { TURN_EXTENSION } from "../protocol/schemas/turns.js";
import { fitChars, splitUtf8 } from "../protocol/text-cut.js";
import { agentTitle, textContent, toolKind, toolLocations } from "./tool-calls.js";

type Inner = SubagentEvent["event"];
type ToolCallEvent = Extract<TurnEventBody, { type: "tool_call" }>;
type ApprovalEvent = Extract<TurnEventBody, { type: "approval_requested" }>;
type SubagentEvent = Extract<TurnEventBody, { type: "subagent_event" }>;

export const AGENT_TOOL = "agent";
/** The tool lines a progress shows: the last ones; earlier ones are counted. */
export const PROGRESS_LINES = 12;
/** The characters of one progress line (a tool's title and outcome). */
const LINE_CHARS = 160;

interface InnerCall {
  title: string;
  tool: string;
  input: unknown;
  /** null while it runs; else its end, as "✓ summary" or "✗ status: summary". */
  outcome: string | null;
}

class Subagent {
  steps = 0;
  answer = "";
  readonly calls = new Map<string, InnerCall>();

  constructor(readonly description: string) {}

  /** The progress as one text: the step count, then the last tool calls, one a line. */
  progress(): string {
    const calls = [...this.calls.values()];
    const head = `${count(this.steps, "step")} · ${count(calls.length, "tool call")}`;
    const shown = calls.slice(-PROGRESS_LINES);
    const earlier = calls.length - shown.length;
    const lines = [head, ...(earlier > 0 ? [`(${earlier} earlier)`] : [])];
    for (const call of shown) lines.push(fitChars(oneLine(callLine(call)), LINE_CHARS));
    return lines.join("\n");
  }
}

/**
 * A subagent as ACP shows it (docs/acp.md, "Subagents"): the parent's `agent` call is one tool
 * call (kind `think`, titled with its description) whose content is the subagent's progress
 * (its steps and tool calls, each with its outcome), replaced as it works, and at the end the
 * subagent's answer and the summary. The subagent's own tool calls are not tool calls of the
 * editor's, with one exception: a call that asks for approval is announced as a tool call of its
 * own just before its `session/request_permission` (titled "<description> › <title>", `_meta`
 * naming the subagent), so the editor has the call the request is about, and it then runs and
 * ends like any other.
 */
export class SubagentView {
  private readonly running = new Map<string, Subagent>();
  /** Inner calls announced to the editor for an approval: they are its tool calls from then on. */
  private readonly surfaced = new Set<string>();

  /** The parent's `agent` call, announced: a `think` tool call titled with its description. */
  called(event: ToolCallEvent): SessionUpdate[] {
    const description = descriptionOf(event);
    this.running.set(event.item_id, new Subagent(description));
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: event.item_id,
        title: description,
        kind: toolKind(AGENT_TOOL),
        status: "pending",
        rawInput: event.input,
      },
    ];
  }

  /** Whether this item is the parent's `agent` call. */
  owns(itemId: string): boolean {
    return this.running.has(itemId);
  }

  /** Whether this item is a subagent's own call the editor was never told of. */
  hidden(itemId: string): boolean {
    return !this.surfaced.has(itemId) && this.subagentOfCall(itemId) !== null;
  }

  /** Whether this item is a subagent's call announced for its approval (an editor's tool call). */
  isSurfaced(itemId: string): boolean {
    return this.surfaced.has(itemId);
  }

  /**
   * One event of a subagent: the `agent` call's progress when it changed what is shown (a step,
   * a tool call, its end, the answer); nothing for the rest (deltas, its own turn_started).
   */
  inner(wrapper: SubagentEvent): SessionUpdate[] {
    const subagent = this.running.get(wrapper.item_id);
    if (!subagent) return [];
    const event = wrapper.event as Inner;
    switch (event.type) {
      case "usage":
        subagent.steps += 1;
        break;
      case "message_done":
        subagent.answer = event.text;
        return [];
      case "tool_call":
        subagent.calls.set(event.item_id, {
          title: event.title,
          tool: event.tool,
          input: event.input,
          outcome: null,
        });
        break;
      case "tool_done": {
        const call = subagent.calls.get(event.item_id);
        if (!call) return [];
        call.outcome =
          event.status === "completed"
            ? `✓ ${event.summary}`
            : `✗ ${event.status === event.summary ? event.status : `${event.status}: ${event.summary}`}`;
        break;
      }
      default:
        return [];
    }
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: wrapper.item_id,
        status: "in_progress",
        content: [textContent(subagent.progress())],
      },
    ];
  }

  /**
   * A subagent's approval: its call announced as a tool call of the editor's (once), just
   * before the permission request about it. Nothing for the parent's own approvals.
   */
  announce(event: ApprovalEvent, cwd: string): SessionUpdate[] {
    const parentId = event.subagent_id;
    if (!parentId || this.surfaced.has(event.item_id)) return [];
    const subagent = this.running.get(parentId);
    const call = subagent?.calls.get(event.item_id);
    if (!subagent || !call) return [];
    this.surfaced.add(event.item_id);
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: event.item_id,
        title: this.approvalTitle(event),
        kind: toolKind(call.tool),
        status: "pending",
        locations: toolLocations(cwd, call.input),
        rawInput: call.input,
        _meta: { "mc-agent": { subagentId: parentId, parentToolCallId: parentId } },
      },
    ];
  }

  /** The title of a subagent's approval: its description, then what the call does. */
  approvalTitle(event: ApprovalEvent): string {
    const subagent = event.subagent_id ? this.running.get(event.subagent_id) : undefined;
    return subagent ? `${subagent.description} › ${event.title}` : event.title;
  }

  /**
   * The `agent` call's end: its last progress, the subagent's answer (what the parent's model
   * got, at most `tool_output_bytes`) and the summary ("done in 3 steps").
   */
  done(event: Extract<TurnEventBody, { type: "tool_done" }>): SessionUpdate[] {
    const subagent = this.running.get(event.item_id);
    if (!subagent) return [];
    this.running.delete(event.item_id);
    for (const id of subagent.calls.keys()) this.surfaced.delete(id);
    const content: ToolCallContent[] = [textContent(subagent.progress())];
    // Its answer is the call's result only when it completed (else the summary says why not).
    if (event.status === "completed" && subagent.answer !== "")
      content.push(textContent(bounded(subagent.answer)));
    if (event.summary) content.push(textContent(event.summary));
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: event.item_id,
        status: event.status === "completed" ? "completed" : "failed",
        content,
        rawOutput: { status: event.status, summary: event.summary, exit_code: event.exit_code },
      },
    ];
  }

  private subagentOfCall(itemId: string): Subagent | null {
    for (const subagent of this.running.values()) if (subagent.calls.has(itemId)) return subagent;
    return null;
  }
}

/** An `agent` call's description: its input's, else its title without "Agent: ". */
export function descriptionOf(event: { title: string; input: unknown }): string {
  const input = event.input as { description?: unknown } | null;
  return agentTitle(
    typeof input?.description === "string"
      ? input.description
      : event.title.replace(/^Agent: /, ""),
  );
}

/** "▸ Run npm test" while it runs; "• Read a.ts · ✓ Read 12 lines" once it ended. */
function callLine(call: InnerCall): string {
  return call.outcome === null ? `▸ ${call.title}` : `• ${call.title} · ${call.outcome}`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t\v\f\u2028\u2029]+/g, " ");
}

function bounded(text: string): string {
  return splitUtf8(text, TURN_EXTENSION.tool_output_bytes)[0] ?? "";
}
