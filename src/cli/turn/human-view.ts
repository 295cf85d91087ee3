import {
  adviceForTurn,
  type TurnEventBody,
  type TurnEventParams,
  type TurnResult,
} from "../../client/index.js";
import type { Terminal } from "../terminal.js";
import type { TurnView } from "./view.js";

type Body<T extends TurnEventBody["type"]> = Extract<TurnEventBody, { type: T }>;

/** Which kind of output the last write was: a new kind starts on a fresh line. */
type Flow = "text" | "reasoning" | "tool-line" | "tool-output" | null;

const DIM = "2";
const RED = "31";
const YELLOW = "33";
const OUTPUT_INDENT = "    ";

/**
 * The terminal view of a turn. The reply text streams to stdout as it comes (so
 * `mc-agent exec ... > answer.txt` keeps just the answer); everything else goes to stderr:
 * one dim line per tool call ("▸ Read src/app.ts · Read 12 lines"), shell output indented
 * under it, retries, compactions and the closing summary.
 */
export class HumanView implements TurnView {
  readonly showsTools = true;
  private flow: Flow = null;
  private atLineStart = true;
  /** The tool whose "▸" line is still open, waiting for its outcome on the same line. */
  private openTool: string | null = null;
  private readonly streamed = new Set<string>();

  constructor(
    private readonly term: Terminal,
    private readonly options: { header: boolean },
  ) {}

  event({ event }: TurnEventParams): void {
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
      case "tool_output_delta":
        return this.toolOutput(event.text);
      case "tool_done":
        return this.toolDone(event);
      case "approval_resolved":
        if (event.decision === "cancelled") this.side("  approval cancelled", DIM);
        return;
      case "retry":
        return this.side(
          `  retrying in ${(event.delay_ms / 1000).toFixed(1)} s (${event.reason}, attempt ${event.attempt})`,
          DIM,
        );
      case "compacted":
        return this.side(
          `  context compacted: ${event.tokens_before} → ${event.tokens_after} tokens`,
          DIM,
        );
      case "approval_requested":
      case "usage":
        return; // the approval prompt shows the request; usage totals come with the result
    }
  }

  pause(): void {
    if (this.atLineStart) return;
    const stream = this.flow === "text" ? this.term.io.out : this.term.io.err;
    stream.write("\n");
    this.atLineStart = true;
    this.openTool = null;
  }

  result(result: TurnResult): void {
    this.pause();
    const u = result.usage;
    const tokens = `${result.steps} ${result.steps === 1 ? "step" : "steps"} · ${u.input_tokens} in / ${u.output_tokens} out tokens`;
    if (result.status === "failed") {
      const { code, message } = result.error;
      this.side(`mc-agent: ${message.replace(/\.$/, "")} (${code}). ${adviceForTurn(code)}`, RED);
    } else if (result.status === "interrupted")
      this.side(`Interrupted; what the turn did so far is saved in the session. ${tokens}`, YELLOW);
    else if (result.stop_reason === "end_turn") this.side(`✓ ${tokens}`, DIM);
    else
      this.side(
        `Stopped early: ${STOPS[result.stop_reason]} (${result.stop_reason}). ${tokens}`,
        YELLOW,
      );
  }

  private started(event: Body<"turn_started">): void {
    if (!this.options.header) return;
    const effort = event.effort ? ` (${event.effort})` : "";
    const session = event.created_session ? "new session" : "session";
    this.side(
      `${event.model}${effort} · ${event.permissions} · ${session} ${event.session_id}`,
      DIM,
    );
  }

  private toolOutput(text: string): void {
    if (this.flow !== "tool-output") this.pause();
    this.flow = "tool-output";
    // Indent every line of the output, including a line continued from the previous delta.
    let shown = "";
    for (const char of text) {
      if (this.atLineStart && char !== "\n") shown += OUTPUT_INDENT;
      shown += char;
      this.atLineStart = char === "\n";
    }
    this.term.io.err.write(shown);
  }

  private toolDone(event: Body<"tool_done">): void {
    const color = event.status === "completed" ? DIM : event.status === "failed" ? RED : YELLOW;
    const outcome =
      event.status === "completed" || event.summary === event.status
        ? event.summary
        : `${event.status}: ${event.summary}`;
    if (this.openTool === event.item_id) {
      this.term.io.err.write(`${this.note(" · ", DIM)}${this.note(outcome, color)}\n`);
      this.atLineStart = true;
      this.openTool = null;
      return;
    }
    this.side(`  ↳ ${outcome}`, color);
  }

  /** Streams `text` as one kind of output, starting a fresh line when the kind changes. */
  private write(flow: Flow, text: string, color?: string): void {
    if (text === "") return;
    if (this.flow !== flow) this.pause();
    this.flow = flow;
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
