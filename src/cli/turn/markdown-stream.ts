import type { RenderBlock } from "./markdown.js";

/** An opening or closing code fence: three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A code block longer than this is shown in parts, so a long one still streams. */
const CODE_LINES_PER_PART = 12;
/** Prose without a blank line for this many lines is shown anyway. */
const PROSE_LINES_PER_PART = 40;

/**
 * Streams the model's markdown to the terminal one completed block at a time. Why blocks and
 * not characters: what a line means depends on its block (a line inside a fence is code, a
 * "-" line under a paragraph may be part of it, a table needs its header), and a rendered line
 * cannot be taken back once written (no cursor tricks over scrollback and wrapped lines). So a
 * block is rendered when it is certainly complete: at a blank line outside a fence, at a
 * closing fence, at the end of the message. A long code block is shown in parts of
 * CODE_LINES_PER_PART lines (each re-fenced, so highlighting still knows its language), long
 * prose every PROSE_LINES_PER_PART lines: the screen never waits on a block for long.
 */
export class MarkdownStream {
  /** Completed lines of the block being written. */
  private block: string[] = [];
  /** The line still being written (no newline yet). */
  private partial = "";
  /** The open fence line, while inside a code block. */
  private fence: string | null = null;
  /** Blocks written in this message: a blank line goes between two. */
  private written = 0;

  constructor(
    private readonly render: RenderBlock,
    private readonly write: (text: string) => void,
  ) {}

  push(text: string): void {
    this.partial += text;
    for (let nl = this.partial.indexOf("\n"); nl >= 0; nl = this.partial.indexOf("\n")) {
      const line = this.partial.slice(0, nl).replace(/\r$/, "");
      this.partial = this.partial.slice(nl + 1);
      this.line(line);
    }
  }

  /** The message ended (or something else takes the screen): writes whatever is left. */
  end(): void {
    if (this.partial !== "") this.block.push(this.partial);
    this.partial = "";
    this.flush(false);
    this.fence = null;
    this.written = 0;
    this.midCode = false;
  }

  private line(line: string): void {
    if (this.fence === null) {
      if (line.trim() === "") return this.flush(false);
      this.block.push(line);
      if (FENCE.test(line)) this.fence = line;
      else if (this.block.length >= PROSE_LINES_PER_PART) this.flush(false);
      return;
    }
    this.block.push(line);
    if (closes(this.fence, line)) {
      this.fence = null;
      return this.flush(false);
    }
    if (this.block.length >= CODE_LINES_PER_PART) this.flush(true);
  }

  /** Renders the block so far; `inCode`: its code block goes on in the next part. */
  private flush(inCode: boolean): void {
    const fence = this.fence;
    const source = inCode && fence ? [...this.block, markerOf(fence)] : this.block;
    this.block = inCode && fence ? [fence] : [];
    if (source.every((line) => line.trim() === "" || FENCE.test(line))) {
      if (!inCode) this.midCode = false; // what is left of a code block already shown
      return;
    }
    const shown = this.render(source.join("\n")).replace(/^\n+/, "").trimEnd();
    if (shown === "") return;
    // A blank line between blocks, none between the parts of one code block.
    if (this.written > 0 && !this.midCode) this.write("\n");
    this.write(`${shown}\n`);
    this.written += 1;
    this.midCode = inCode;
  }
  /** The last write was a part of a code block that goes on. */
  private midCode = false;
}

/** A closing fence: only fence characters, the opener's kind, at least as many. */
function closes(open: string, line: string): boolean {
  const marker = line.trim();
  const opener = markerOf(open);
  return /^(`+|~+)$/.test(marker) && marker[0] === opener[0] && marker.length >= opener.length;
}

function markerOf(open: string): string {
  return FENCE.exec(open)?.[1] ?? "```";
}
