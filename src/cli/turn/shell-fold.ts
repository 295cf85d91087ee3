/** Lines of a command's output shown as they come; the rest is folded. */
const HEAD_LINES = 4;
/** The last lines, shown when the command is done (where errors and summaries are). */
const TAIL_LINES = 3;
/** A kept tail line is cut to this many characters (the tail is held in memory). */
const LINE_CHARS = 400;

/**
 * Folds a shell command's output for the screen: its first HEAD_LINES lines stream as they
 * come, then nothing until the command is done, when the count of the lines left out and the
 * last TAIL_LINES lines follow. The whole output is still the model's (and the history's); this
 * is only what the screen shows.
 */
export class ShellFold {
  private lines = 0;
  private current = "";
  private readonly tail: string[] = [];
  private dropped = 0;

  /** The part of `text` to show now (raw; the view indents it). */
  feed(text: string): string {
    let live = "";
    for (let rest = text; rest !== ""; ) {
      const nl = rest.indexOf("\n");
      const piece = nl < 0 ? rest : rest.slice(0, nl + 1);
      rest = nl < 0 ? "" : rest.slice(nl + 1);
      if (this.lines < HEAD_LINES) {
        live += piece;
        if (nl >= 0) this.lines += 1;
        continue;
      }
      this.current = (this.current + piece.replace(/\n$/, "")).slice(0, LINE_CHARS);
      if (nl >= 0) this.keep();
    }
    return live;
  }

  /** After the command: the note on the lines left out (null: none were), then the last lines. */
  finish(): { folded: string | null; tail: string[] } {
    if (this.current !== "") this.keep();
    const folded = this.dropped > 0 ? `… ${this.dropped} more ${plural(this.dropped)}` : null;
    return { folded, tail: this.tail.splice(0) };
  }

  private keep(): void {
    this.tail.push(this.current);
    this.current = "";
    if (this.tail.length > TAIL_LINES) {
      this.tail.shift();
      this.dropped += 1;
    }
  }
}

function plural(n: number): string {
  return n === 1 ? "line" : "lines";
}
