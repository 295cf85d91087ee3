import { clearScreenDown, cursorTo, moveCursor } from "node:readline";

/** The question open under the output: how far its cursor is below its first row, and how to draw it again. */
export interface ComposerView {
  /** Rows from the composer's first row down to the row its cursor is on. */
  rowsAboveCursor(): number;
  /** Draws the composer again from the current row (the cursor at column 0 of an empty row). */
  redraw(): void;
}

/**
 * The bottom of the terminal while the input line stays live during a turn: the turn's output
 * scrolls above, and under it stay, in order, the output's unfinished last line, the status
 * lines (the queued messages) and the composer (the open readline question).
 *
 * A terminal line cannot be taken back once scrolled, so every write during a live turn first
 * erases that bottom area (cursor up over its rows, then clear to the end of the screen), writes
 * the finished lines of output, and draws the area again. An unfinished line (a tool's "▸ Run …"
 * waiting for its outcome, reasoning streaming) is held and drawn as the area's first row until
 * its line ends, so the composer never lands in the middle of it. Row counts are taken from
 * readline's own cursor position for the composer, and from the text's width (code points, SGR
 * colors left out) for the held line and the status lines, which are cut to the width.
 */
export class LiveArea {
  private active = false;
  private tail = "";
  private status: string[] = [];
  private composer: ComposerView | null = null;

  constructor(private readonly screen: NodeJS.WriteStream) {}

  /** `target` with its writes going above the area while it is active. */
  stream(target: NodeJS.WriteStream): NodeJS.WriteStream {
    const wrapped = Object.create(target);
    wrapped.write = (chunk: string | Uint8Array) => {
      this.print(target, typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    };
    return wrapped;
  }

  /** From now on output goes above the area (a live turn started). */
  begin(): void {
    this.active = true;
  }

  /** Erases the area and gives the terminal back: the held line is written as it is. */
  end(): void {
    if (!this.active) return;
    this.erase();
    this.active = false;
    this.status = [];
    const tail = this.tail;
    this.tail = "";
    if (tail !== "") this.screen.write(tail);
  }

  /** Steps aside for something that writes to the terminal directly (an approval's key question). */
  suspend(): void {
    if (!this.active) return;
    this.erase();
    if (this.tail !== "") this.screen.write(`${this.tail}\n`);
    this.tail = "";
    this.active = false;
  }

  resume(): void {
    if (this.active) return;
    this.active = true;
    this.draw();
  }

  get isActive(): boolean {
    return this.active;
  }

  /** The lines shown above the composer (already painted; each is cut to the width). */
  setStatus(lines: string[]): void {
    if (!this.active) {
      this.status = lines;
      return;
    }
    this.erase();
    this.status = lines;
    this.draw();
  }

  /** A question opens under the output: the area is drawn first, the composer draws itself next. */
  attach(composer: ComposerView): void {
    if (this.active) {
      this.erase();
      this.drawStatic();
    }
    this.composer = composer;
  }

  /** The question closed: its rows are erased and the rest of the area stays. */
  detach(composer: ComposerView): void {
    if (this.composer !== composer) return;
    if (this.active) this.erase();
    this.composer = null;
    if (this.active) this.drawStatic();
  }

  /**
   * The composer's line was sent (readline moved to the next row after echoing it): `echoRows`
   * is how many rows the echo took, from the composer's first row to the row readline is on now.
   */
  afterSend(composer: ComposerView, echoRows: number): void {
    if (this.composer !== composer || !this.active) return;
    this.up(echoRows + this.staticRows());
    this.drawStatic();
  }

  private print(target: NodeJS.WriteStream, text: string): void {
    if (!this.active) {
      target.write(text);
      return;
    }
    this.erase();
    const whole = this.tail + text;
    const cut = whole.lastIndexOf("\n") + 1;
    if (cut > 0) target.write(whole.slice(0, cut));
    this.tail = whole.slice(cut);
    this.draw();
  }

  private draw(): void {
    this.drawStatic();
    this.composer?.redraw();
  }

  private drawStatic(): void {
    if (this.tail !== "") this.screen.write(`${this.tail}\n`);
    for (const line of this.status) this.screen.write(`${line}\n`);
  }

  /** Cursor to the area's first row, column 0, and everything from there down cleared. */
  private erase(): void {
    this.up((this.composer?.rowsAboveCursor() ?? 0) + this.staticRows());
  }

  private up(rows: number): void {
    if (rows > 0) moveCursor(this.screen, 0, -rows);
    cursorTo(this.screen, 0);
    clearScreenDown(this.screen);
  }

  private staticRows(): number {
    const width = this.width();
    const tailRows = this.tail === "" ? 0 : rowsOf(this.tail, width);
    return tailRows + this.status.reduce((sum, line) => sum + rowsOf(line, width), 0);
  }

  width(): number {
    return Math.max(20, this.screen.columns || 80);
  }
}

/** Rows a line takes on a terminal `width` columns wide (at least one). */
export function rowsOf(line: string, width: number): number {
  return Math.max(1, Math.ceil(visibleWidth(line) / width));
}

/** Columns a text takes: its code points, SGR color sequences left out. */
export function visibleWidth(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips SGR sequences
  return [...text.replace(/\x1b\[[0-9;]*m/g, "")].length;
}
