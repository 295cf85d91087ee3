import { createInterface, type Interface } from "node:readline";
import type { HistoryFile } from "./history-file.js";
import type { Answer, KeyAnswer, LineReader, LiveAnswer } from "./reader-types.js";
import { TerminalReader } from "./terminal-reader.js";

/**
 * The terminal reader (node:readline with bracketed paste) when stdin is a terminal, else one
 * line per turn from the pipe. `history`: where messages are kept across runs (terminal only).
 */
export function lineReader(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  history: HistoryFile | null = null,
): LineReader {
  return input.isTTY ? new TerminalReader(input, output, history) : new PipedReader(input, output);
}

/** Piped input keeps one interface, so lines read ahead in a chunk are never lost. */
class PipedReader implements LineReader {
  readonly interactive = false;
  readonly area = null;
  private readonly rl: Interface;
  private readonly lines: AsyncIterator<string>;

  constructor(input: NodeJS.ReadStream, output: NodeJS.WritableStream) {
    this.rl = createInterface({ input, output, terminal: false });
    this.lines = this.rl[Symbol.asyncIterator]();
  }

  async ask(): Promise<Answer> {
    const next = await this.lines.next();
    return next.done ? { kind: "end" } : { kind: "line", text: next.value };
  }

  async askLive(): Promise<LiveAnswer> {
    return { kind: "end" }; // a pipe has no live input line
  }

  async key(): Promise<KeyAnswer> {
    return { kind: "end" }; // nobody to press it
  }

  close(): void {
    this.rl.close();
  }
}
