import type { TurnEventBody, TurnEventParams, TurnResult } from "../../client/index.js";
import type { Terminal } from "../terminal.js";
import { diffLines } from "./diff-lines.js";
import type { RenderBlock } from "./markdown.js";
import { MarkdownStream } from "./markdown-stream.js";
import { PlanBlock } from "./plan-block.js";
import { ShellFold } from "./shell-fold.js";
import { SubagentLines } from "./subagent-line.js";
import { failureLines } from "./turn-failure.js";
import { usageLine } from "./usage-line.js";
import type { TurnExit, TurnView } from "./view.js";

type Body<T extends TurnEventBody["type"]> = Extract<TurnEventBody, { type: T }>;

/** Which kind of output the last write was: a new kind starts on a fresh line. */
type Flow = "text" | "reasoning" | "tool-line" | "tool-output" | null;

const DIM = "2";
const RED = "31";
const YELLOW = "33";
const OUTPUT_INDENT = "    ";

interface HumanViewOptions {
  header: boolean;
  /** Renders the reply's markdown (a terminal); absent or null: the text as it came (a pipe). */
  markdown?: RenderBlock | null;
}

/**
 * The terminal view of a turn. The reply goes to stdout (so `mc-agent exec ... > answer.txt`
 * keeps just the answer): on a terminal as rendered markdown, one completed block at a time
 * (MarkdownStream says why), otherwise exactly as it streams. Everything else goes to stderr:
 * one dim line per tool call ("▸ Read src/app.ts · Read 12 lines"), shell output folded under
 * it, the diff of an edit applied without asking, retries, compactions and the closing summary
 * with usage and context fill.
 */
export class HumanView implements TurnView {
  readonly showsTools = true;
  private flow: Flow = null;
  private atLineStart = true;
  /** The tool whose "▸" line is still open, waiting for its outcome on the same line. */
  private openTool: string | null = null;
  private readonly streamed = new Set<string>();
  /** Tool calls whose approval was asked: their diff was shown with the question. */
  private readonly asked = new Set<string>();
  private readonly folds = new Map<string, ShellFold>();
  private readonly markdown: MarkdownStream | null;
  private lastUsage: Body<"usage"> | null = null;
  private model: string | null = null;
  private readonly plan: PlanBlock;
  /** `update_plan` calls: their plan is shown, their tool line only when they fail. */
  private readonly planCalls = new Set<string>();
  /** Subagents, one line each (subagent-line.ts). */
  private readonly subagents: SubagentLines;

  constructor(
    private readonly term: Terminal,
    private readonly options: HumanViewOptions,
  ) {
    const render = options.markdown;
    this.markdown = render
      ? new MarkdownStream(render, (text) => this.term.io.out.write(text))
      : null;
    this.plan = new PlanBlock(term);
    this.subagents = new SubagentLines(term);
  }

  event({ event }: TurnEventParams): void {
    if (this.quietPlanCall(event)) return;
    if (event.type === "plan") {
      if (!this.plan.inPlace) this.pause();
      return this.plan.show(event);
    }
    if (this.subagents.owns(event)) {
      if (!this.subagents.inPlace) this.pause();
      return this.subagents.show(event);
    }
    if (event.type !== "usage") {
      this.plan.covered();
      this.subagents.covered();
    }
    switch (event.type) {
      case "turn_started":
        return this.started(event);
      case "message_delta":
        this.streamed.add(event.item_id);
        return this.write("text", event.text);
      case "message_done":
        if (!this.streamed.has(event.item_id)) this.write("text", event.text);
        return this.pause();
      case "reasoning_delta":
        return this.write("reasoning", event.text, DIM);
      case "tool_call":
        this.pause();
        this.term.io.err.write(this.note(`▸ ${event.title}`, DIM));
        this.flow = "tool-line";
        this.atLineStart = false;
        this.openTool = event.item_id;
        return;
      case "approval_requested": {
        this.asked.add(event.item_id);
        // A subagent's call has no line of its own: the question says whose and what it is.
        const asking = this.subagents.approvalTitle(event);
        if (asking !== null) this.side(`? ${asking}`, YELLOW);
        return; // the approval prompt shows the request
      }
      case "tool_output_delta":
        return this.toolOutput(event.item_id, event.text);
      case "tool_done":
        return this.toolDone(event);
      case "approval_resolved":
        if (event.decision === "cancelled") this.side("  approval cancelled", DIM);
        return;
      case "retry":
        return this.side(
          `  ${event.delay_ms === 0 ? "retrying now" : `retrying in ${(event.delay_ms / 1000).toFixed(1)} s`} (${event.reason}, attempt ${event.attempt})`,
          DIM,
        );
      case "compacted":
        return this.side(
          `  context compacted: ${event.tokens_before} → ${event.tokens_after} tokens`,
          DIM,
        );
      case "usage":
        this.lastUsage = event; // shown with the result
        return;
    }
  }

  /**
   * An `update_plan` call shows nothing of its own: its plan is what it shows. One that failed
   * (an invalid plan) gets its tool line, with the error.
   */
  private quietPlanCall(event: TurnEventBody): boolean {
    if (event.type === "tool_call" && event.tool === "update_plan") {
      this.planCalls.add(event.item_id);
      return true;
    }
    if (event.type !== "tool_done" || !this.planCalls.delete(event.item_id)) return false;
    if (event.status === "completed") return true;
    this.plan.covered();
    this.side(`▸ Update the plan · ${event.status}: ${event.summary}`, RED);
    return true;
  }

  pause(): void {
    // Whoever pauses the view writes next (a prompt, a note): the plan is no longer last.
    this.plan.covered();
    this.subagents.covered();
    if (this.flow === "text" && this.markdown) {
      this.markdown.end(); // rendered blocks always end their line
      this.atLineStart = true;
    }
    if (this.atLineStart) return;
    const stream = this.flow === "text" ? this.term.io.out : this.term.io.err;
    stream.write("\n");
    this.atLineStart = true;
    this.openTool = null;
  }

  result(result: TurnResult, exit?: TurnExit): void {
    this.plan.covered();
    this.pause();
    const usage = usageLine(result, this.lastUsage);
    const denied = exit?.deniedUnasked ?? 0;
    if (denied > 0)
      this.side(
        `${denied} ${denied === 1 ? "approval was" : "approvals were"} denied: no terminal to ask on (exit ${exit?.code}).`,
        YELLOW,
      );
    if (result.status === "failed") {
      for (const line of failureLines(this.term, result, this.model)) this.side(line, RED);
      if (result.steps > 0) this.side(`  ${usage}`, DIM);
    } else if (result.status === "interrupted")
      this.side(`Interrupted; what the turn did so far is saved in the session. ${usage}`, YELLOW);
    else if (result.stop_reason === "end_turn") this.side(`✓ ${usage}`, DIM);
    else
      this.side(
        `Stopped early: ${STOPS[result.stop_reason]} (${result.stop_reason}). ${usage}`,
        YELLOW,
      );
  }

  private started(event: Body<"turn_started">): void {
    this.model = event.model;
    if (!this.options.header) return;
    const effort = event.effort ? ` (${event.effort})` : "";
    const session = event.created_session ? "new session" : "session";
    this.side(
      `${event.model}${effort} · ${event.permissions} · ${session} ${event.session_id}`,
      DIM,
    );
  }

  private toolOutput(itemId: string, text: string): void {
    let fold = this.folds.get(itemId);
    if (!fold) {
      fold = new ShellFold();
      this.folds.set(itemId, fold);
    }
    const live = fold.feed(text);
    if (live === "") return;
    if (this.flow !== "tool-output") this.pause();
    this.flow = "tool-output";
    this.term.io.err.write(this.indented(live));
  }

  /** Indents every line of shell output, including a line continued from the previous delta. */
  private indented(text: string): string {
    let shown = "";
    for (const char of text) {
      if (this.atLineStart && char !== "\n") shown += OUTPUT_INDENT;
      shown += char;
      this.atLineStart = char === "\n";
    }
    return shown;
  }

  private toolDone(event: Body<"tool_done">): void {
    this.foldEnd(event.item_id);
    const color = event.status === "completed" ? DIM : event.status === "failed" ? RED : YELLOW;
    const outcome =
      event.status === "completed" || event.summary === event.status
        ? event.summary
        : `${event.status}: ${event.summary}`;
    if (this.openTool === event.item_id) {
      this.term.io.err.write(`${this.note(" · ", DIM)}${this.note(outcome, color)}\n`);
      this.atLineStart = true;
      this.openTool = null;
      this.flow = null;
    } else this.side(`  ↳ ${outcome}`, color);
    // An edit applied without a question (accept_edits, full_access): what it changed.
    if (event.diff !== null && event.status === "completed" && !this.asked.has(event.item_id))
      for (const line of diffLines(event.diff)) this.side(line.text, line.color);
  }

  /** The folded part of a command's output: how many lines were left out, then the last ones. */
  private foldEnd(itemId: string): void {
    const fold = this.folds.get(itemId);
    if (!fold) return;
    this.folds.delete(itemId);
    const { folded, tail } = fold.finish();
    if (folded === null && tail.length === 0) return;
    this.pause();
    if (folded !== null) this.side(`${OUTPUT_INDENT}${folded}`, DIM);
    for (const line of tail) this.term.io.err.write(`${OUTPUT_INDENT}${line}\n`);
    this.flow = null;
  }

  /** Streams `text` as one kind of output, starting a fresh line when the kind changes. */
  private write(flow: Flow, text: string, color?: string): void {
    if (text === "") return;
    if (this.flow !== flow) this.pause();
    this.flow = flow;
    if (flow === "text" && this.markdown) return this.markdown.push(text);
    const shown = color ? this.note(text, color) : text;
    (flow === "text" ? this.term.io.out : this.term.io.err).write(shown);
    this.atLineStart = text.endsWith("\n");
  }

  /** One whole line on stderr. */
  private side(text: string, color: string): void {
    this.pause();
    this.term.io.err.write(`${this.note(text, color)}\n`);
    this.flow = null;
  }

  private note(text: string, color: string): string {
    return this.term.paintNote(text, color);
  }
}

const STOPS: Record<"max_tokens" | "max_steps" | "refusal", string> = {
  max_tokens: "the model reached its output limit",
  max_steps: "the turn reached its limit of model calls",
  refusal: "the model refused",
};
