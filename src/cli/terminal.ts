import { headChars } from "../protocol/text-cut.js";

/**
 * Output for the terminal frontend: color only on a TTY and without NO_COLOR, a live status
 * line (progress, spinner) only when stderr is a TTY, plain lines otherwise.
 */
interface Io {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

export class Terminal {
  readonly color: boolean;
  /** Color for stderr, decided on its own: stdout may be a file while notes reach a terminal. */
  readonly noteColor: boolean;
  readonly live: boolean;
  private statusShown = false;
  private spinner: NodeJS.Timeout | null = null;

  constructor(readonly io: Io) {
    const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "";
    this.color = Boolean(io.out.isTTY) && !noColor && io.env.TERM !== "dumb";
    this.noteColor = Boolean(io.err.isTTY) && !noColor && io.env.TERM !== "dumb";
    this.live = Boolean(io.err.isTTY) && io.env.TERM !== "dumb";
  }

  line(text = ""): void {
    this.clearStatus();
    this.io.out.write(`${text}\n`);
  }

  /** A note for people (stderr), so that stdout stays clean for --json. */
  note(text: string): void {
    this.clearStatus();
    this.io.err.write(`${text}\n`);
  }

  /** Replaces the live status line (TTY only; silently nothing otherwise). */
  status(text: string): void {
    if (!this.live) return;
    const width = Math.max(20, (this.io.err.columns || 80) - 1);
    this.io.err.write(`\r\x1b[2K${headChars(text, width)}`);
    this.statusShown = true;
  }

  /** A spinner in front of `text` until stopSpinner() (TTY only). */
  startSpinner(text: string): void {
    if (!this.live) return;
    const frames = ["|", "/", "-", "\\"];
    let i = 0;
    this.stopSpinner();
    this.status(`${frames[0]} ${text}`);
    this.spinner = setInterval(() => {
      i = (i + 1) % frames.length;
      this.status(`${frames[i]} ${text}`);
    }, 120);
  }

  stopSpinner(): void {
    if (this.spinner) clearInterval(this.spinner);
    this.spinner = null;
    this.clearStatus();
  }

  clearStatus(): void {
    if (!this.statusShown) return;
    this.io.err.write("\r\x1b[2K");
    this.statusShown = false;
  }

  bold(text: string): string {
    return this.paint(text, "1");
  }
  dim(text: string): string {
    return this.paint(text, "2");
  }
  red(text: string): string {
    return this.paint(text, "31");
  }
  green(text: string): string {
    return this.paint(text, "32");
  }
  yellow(text: string): string {
    return this.paint(text, "33");
  }

  /** Painted for stderr (notes, tool lines, prompts): `code` is an SGR code such as "2" (dim). */
  paintNote(text: string, code: string): string {
    return this.noteColor ? `\x1b[${code}m${text}\x1b[0m` : text;
  }

  private paint(text: string, code: string): string {
    return this.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}

/** Left-aligned columns; the last column is not padded. */
export function table(
  rows: string[][],
  visibleLength: (s: string) => number = (s) => s.length,
): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)),
      )
      .join("  ")
      .trimEnd(),
  );
}

/** Display length without ANSI color codes. */
export function plainLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI escapes
  return text.replace(/\x1b\[[0-9;]*m/g, "").length;
}
