import { UsageError } from "../args.js";
import type { Terminal } from "../terminal.js";
import type { LineReader } from "../turn/reader-types.js";

/** Ctrl-C (or Ctrl-D) at one of setup's questions: nothing was written, on purpose. */
export class SetupQuit extends Error {
  override readonly name = "SetupQuit";
}

/**
 * One of setup's questions: a number from the list shown above it, or one of `names` typed out;
 * Enter takes the default (`fallback`, an index). Asked again after an answer that is neither.
 * Input that is not a terminal answers a line at a time; when it ends, the command says how to
 * run without questions.
 */
export async function pickIndex(
  term: Terminal,
  reader: LineReader,
  prompt: string,
  names: string[],
  fallback: number,
): Promise<number> {
  for (;;) {
    const answer = await reader.ask(prompt);
    if (answer.kind === "interrupt") throw new SetupQuit();
    if (answer.kind === "end") {
      if (reader.interactive) throw new SetupQuit();
      throw new UsageError(
        "no answer on stdin: run it on a terminal, or pass --yes (or --provider and --model)",
      );
    }
    const text = answer.text.trim();
    if (text === "") return fallback;
    const byNumber = /^\d+$/.test(text) ? Number(text) - 1 : -1;
    if (byNumber >= 0 && byNumber < names.length) return byNumber;
    const byName = names.indexOf(text);
    if (byName >= 0) return byName;
    term.note(
      `"${text.slice(0, 60)}" is not one of them: type its number, or Enter for the default.`,
    );
  }
}
