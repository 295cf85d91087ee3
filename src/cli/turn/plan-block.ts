import type { TurnEventBody } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import { showHidden } from "../../protocol/visible-text.js";
import type { Terminal } from "../terminal.js";

type PlanEvent = Extract<TurnEventBody, { type: "plan" }>;

const MARKS = { completed: "[x]", in_progress: "[>]", pending: "[ ]" } as const;
const COLORS = { completed: "2", in_progress: "1", pending: "0" } as const;

/**
 * The model's plan on stderr (docs/cli.md, "The plan"): a heading and one line per step. On a
 * terminal, a plan that follows the last one with nothing shown between them replaces it in
 * place (the cursor goes back up over its lines), each line cut to the screen's width so that
 * none wraps; otherwise, and always when piped, the whole plan is written again as plain lines.
 */
export class PlanBlock {
  /** Lines of the plan last written, while it is still the last thing on the screen; else 0. */
  private lines = 0;

  constructor(private readonly term: Terminal) {}

  /** Something else was shown: the next plan starts below it. */
  covered(): void {
    this.lines = 0;
  }

  /** Whether the next plan replaces the one on the screen (`pause` is then not needed). */
  get inPlace(): boolean {
    return this.lines > 0 && this.term.live;
  }

  show(event: PlanEvent): void {
    const err = this.term.io.err;
    if (this.inPlace) err.write(`\x1b[${this.lines}A\r\x1b[0J`);
    const width = this.term.live ? Math.max(20, (err.columns || 80) - 1) : Number.POSITIVE_INFINITY;
    const fit = (text: string) =>
      width === Number.POSITIVE_INFINITY ? text : fitChars(text, width);
    const heading = event.explanation ? `Plan: ${oneLine(event.explanation)}` : "Plan:";
    const lines = [this.term.paintNote(fit(heading), "1")];
    for (const { step, status } of event.plan) {
      const text = fit(`  ${MARKS[status]} ${oneLine(step)}`);
      lines.push(status === "pending" ? text : this.term.paintNote(text, COLORS[status]));
    }
    if (event.plan.length === 0) lines.push(this.term.paintNote("  (empty)", "2"));
    err.write(`${lines.join("\n")}\n`);
    this.lines = lines.length;
  }
}

/**
 * A step is one line on the screen: line breaks and tabs become spaces, and any other control
 * character is shown as `\u{1b}`, never sent to the terminal (an escape sequence would move
 * the cursor, and the in-place redraw with it).
 */
export function oneLine(text: string): string {
  return showHidden(
    text
      .replace(/[\r\n\t\v\f\u2028\u2029]+/g, " ")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are shown
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`),
  );
}
