import { createInterface, type Interface } from "node:readline";

/** What a prompt ended with: a line, Ctrl-C (with what was typed), or the end of input. */
export type Answer =
  | { kind: "line"; text: string }
  | { kind: "interrupt"; typed: string }
  | { kind: "end" };

export interface LineReader {
  /** Whether a person is typing (stdin is a terminal). */
  readonly interactive: boolean;
  ask(prompt: string): Promise<Answer>;
  close(): void;
}

/**
 * Lines from the user through node:readline. On a terminal each question gets its own
 * interface, closed once answered: readline puts the terminal in raw mode while it reads, and
 * only in cooked mode between questions does Ctrl-C reach this process as SIGINT (which is how
 * a running turn is interrupted). The line history is carried from one interface to the next.
 * Piped input keeps one interface, so lines read ahead in a chunk are never lost.
 */
export function lineReader(input: NodeJS.ReadStream, output: NodeJS.WritableStream): LineReader {
  return input.isTTY ? new TerminalReader(input, output) : new PipedReader(input, output);
}

class TerminalReader implements LineReader {
  readonly interactive = true;
  private history: string[] = [];

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WritableStream,
  ) {}

  ask(prompt: string): Promise<Answer> {
    const rl = createInterface({
      input: this.input,
      output: this.output,
      terminal: true,
      history: this.history,
      historySize: 200,
    });
    rl.on("history", (history: string[]) => {
      this.history = history;
    });
    return new Promise<Answer>((resolve) => {
      let answer: Answer = { kind: "end" };
      rl.once("line", (text) => {
        answer = { kind: "line", text };
        rl.close();
      });
      rl.on("SIGINT", () => {
        answer = { kind: "interrupt", typed: rl.line };
        this.output.write("^C\n");
        rl.close();
      });
      // Ctrl-D on an empty line, or the terminal went away: the end of input.
      rl.once("close", () => {
        if (answer.kind === "end") this.output.write("\n");
        resolve(answer);
      });
      rl.setPrompt(prompt);
      rl.prompt();
    });
  }

  close(): void {}
}

class PipedReader implements LineReader {
  readonly interactive = false;
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

  close(): void {
    this.rl.close();
  }
}
