import type { TurnEventBody } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import type { Terminal } from "../terminal.js";
import { oneLine } from "./plan-block.js";

type Body<T extends TurnEventBody["type"]> = Extract<TurnEventBody, { type: T }>;
type Inner = Body<"subagent_event">["event"];

export const AGENT_TOOL = "agent";
const DIM = "2";
const RED = "31";
const YELLOW = "33";
const DESCRIPTION_CHARS = 120;

interface Subagent {
  description: string;
  steps: number;
  calls: number;
  /** What it does now: its running call's title, or its last call's, marked with its end. */
  action: string;
  /** Its calls' titles, by item ID (a piped line names the call that ended). */
  titles: Map<string, string>;
  /** Its end ("done in 2 steps", "failed: …"), once its `agent` call is done. */
  end: { text: string; color: string } | null;
}

/**
 * Subagents on stderr (docs/cli.md, "Subagents"): one line each, made from its `agent` call and
 * the `subagent_event`s that carry its turn: its description, its steps and tool calls, what it
 * does now, then its end. On a terminal the lines of the subagents still running (and of those
 * that ended since the lines were last drawn) are redrawn in place while they are the last thing
 * on the screen, each cut to the width so none wraps; once something else is shown the next
 * redraw starts below it, and the subagents that had ended stay as they were drawn. Piped, every
 * change worth a line is written as a plain line: the start, each tool call with its outcome,
 * the end.
 */
export class SubagentLines {
  private readonly agents = new Map<string, Subagent>();
  /** Lines drawn last, while they are still the last thing on the screen; else 0. */
  private lines = 0;

  constructor(private readonly term: Terminal) {}

  /** Whether this event belongs to a subagent's line (its `agent` call, or one of its events). */
  owns(event: TurnEventBody): boolean {
    if (event.type === "subagent_event") return true;
    if (event.type === "tool_call") return event.tool === AGENT_TOOL;
    return event.type === "tool_done" && this.agents.has(event.item_id);
  }

  /** Whether the next draw replaces the lines on the screen (the view need not `pause`). */
  get inPlace(): boolean {
    return this.lines > 0 && this.term.live;
  }

  /** Something else was shown: the next draw starts below it; ended subagents are settled. */
  covered(): void {
    if (this.lines === 0) return;
    this.lines = 0;
    for (const [id, agent] of this.agents) if (agent.end) this.agents.delete(id);
  }

  /** The title of a subagent's approval: its description, then the call's title. */
  approvalTitle(event: Body<"approval_requested">): string | null {
    const agent = event.subagent_id ? this.agents.get(event.subagent_id) : undefined;
    return agent ? `${agent.description} › ${event.title}` : null;
  }

  show(event: TurnEventBody): void {
    if (event.type === "tool_call") return this.started(event);
    if (event.type === "tool_done") return this.ended(event);
    if (event.type === "subagent_event") return this.progress(event.item_id, event.event);
  }

  private started(event: Body<"tool_call">): void {
    const input = event.input as { description?: unknown } | null;
    // At most the tool's own bound on a description, even for a call it refuses.
    const description = fitChars(
      oneLine(typeof input?.description === "string" ? input.description : event.title),
      DESCRIPTION_CHARS,
    );
    const agent = {
      description,
      steps: 0,
      calls: 0,
      action: "starting",
      titles: new Map<string, string>(),
      end: null,
    };
    this.agents.set(event.item_id, agent);
    if (this.term.live) this.draw();
    else this.plain(`▸ Agent: ${description}`, DIM);
  }

  private progress(itemId: string, event: Inner): void {
    const agent = this.agents.get(itemId);
    if (!agent || agent.end) return;
    if (event.type === "usage") agent.steps += 1;
    else if (event.type === "tool_call") {
      agent.calls += 1;
      agent.action = oneLine(event.title);
      agent.titles.set(event.item_id, agent.action);
    } else if (event.type === "tool_done") {
      const title = agent.titles.get(event.item_id) ?? "";
      const ok = event.status === "completed";
      // Its last call stays in view, marked, until its next one starts.
      agent.action = ok ? `✓ ${title}` : `✗ ${title} (${event.status})`;
      if (!this.term.live) {
        const outcome = ok ? oneLine(event.summary) : event.status;
        this.plain(`  ${agent.description} › ${title} · ${outcome}`, ok ? DIM : YELLOW);
      }
    } else return;
    if (this.term.live) this.draw();
  }

  private ended(event: Body<"tool_done">): void {
    const agent = this.agents.get(event.item_id);
    if (!agent) return;
    const failed = event.status !== "completed";
    const summary = oneLine(event.summary);
    agent.end = {
      text: failed && summary !== event.status ? `${event.status}: ${summary}` : summary,
      color: event.status === "failed" ? RED : failed ? YELLOW : DIM,
    };
    if (this.term.live) return this.draw();
    this.agents.delete(event.item_id);
    this.plain(`▸ Agent: ${agent.description} · ${agent.end.text}`, agent.end.color);
  }

  /** Every line of the block, in place over the last drawing when it is still last. */
  private draw(): void {
    const err = this.term.io.err;
    const width = Math.max(20, (err.columns || 80) - 1);
    const lines = [...this.agents.values()].map((agent) => {
      const text = fitChars(`▸ Agent: ${lineOf(agent)}`, width);
      return this.term.paintNote(text, agent.end?.color ?? DIM);
    });
    // One write: chat's live area (live-area.ts) passes a write that ends a line on whole.
    const back = this.lines > 0 ? `\x1b[${this.lines}A\r\x1b[0J` : "";
    err.write(`${back}${lines.join("\n")}\n`);
    this.lines = lines.length;
  }

  private plain(text: string, color: string): void {
    this.term.io.err.write(`${this.term.paintNote(text, color)}\n`);
  }
}

/** "Map the code · 2 steps · 3 tools · Read src/a.ts", or its end instead of its action. */
function lineOf(agent: Subagent): string {
  const steps = `${agent.steps} ${agent.steps === 1 ? "step" : "steps"}`;
  const tools = `${agent.calls} ${agent.calls === 1 ? "tool" : "tools"}`;
  const now = agent.end ? agent.end.text : agent.action;
  return `${agent.description} · ${steps} · ${tools} · ${now}`;
}
