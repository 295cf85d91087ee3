import { createInterface, emitKeypressEvents, type Key } from "node:readline";
import type { HistoryFile } from "./history-file.js";
import type { Answer, AskOptions, KeyAnswer, LineReader } from "./reader-types.js";

/** Asks the terminal to wrap pasted text in ESC[200~ … ESC[201~ (bracketed paste mode). */
const PASTE_MODE_ON = "\x1b[?2004h";
const PASTE_MODE_OFF = "\x1b[?2004l";
/** Lines readline keeps for Up/Down within one question. */
const HISTORY_SIZE = 500;

/**
 * The chat's line editor: node:readline's Interface (cursor keys, Ctrl-A/E/K/U/W, Up/Down
 * history, Ctrl-R-free but otherwise emacs-style editing) over its keypress decoder, which
 * names the terminal's escape sequences: bracketed paste arrives as "paste-start" and
 * "paste-end" keys, Alt-Enter as a "return" key with `meta`. A message can span lines: every
 * line break inside a paste, an Alt-Enter, or a line ending in "\" continues it on a new
 * line (prompt "… "); a plain Enter sends it all.
 *
 * Each question gets its own interface, closed once answered: readline puts the terminal in
 * raw mode while it reads, and only in cooked mode between questions does Ctrl-C reach this
 * process as SIGINT (which is how a running turn is interrupted). Keys that arrive while no
 * question is open (the rest of a chunk after the line that answered one: type-ahead, or a
 * paste in a terminal without bracketed paste) are kept and replayed into the next question,
 * never dropped.
 */
export class TerminalReader implements LineReader {
  readonly interactive = true;
  private history: string[];
  /** Whether a question is open (its listeners take the keys). */
  private open = false;
  private readonly pending: [string | undefined, Key | undefined][] = [];
  private readonly keep = (text: string | undefined, key: Key | undefined) => {
    if (!this.open) this.pending.push([text, key]);
  };
  /** The terminal's input ended (Ctrl-D read between questions, or the terminal went away). */
  private ended = false;
  private readonly onEnd = () => {
    this.ended = true;
  };

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WritableStream,
    private readonly saved: HistoryFile | null,
  ) {
    this.history = saved?.load() ?? [];
    emitKeypressEvents(input);
    input.on("keypress", this.keep);
    input.once("end", this.onEnd);
    // Listening for keys set stdin flowing; only an open question reads the terminal.
    input.pause();
  }

  /** The kept keys, in order, to the question now open, until one of them closes it. */
  private replay(): void {
    while (this.open && this.pending.length > 0) {
      const [text, key] = this.pending.shift() as [string | undefined, Key | undefined];
      this.input.emit("keypress", text, key);
    }
  }

  ask(prompt: string, options: AskOptions = {}): Promise<Answer> {
    // A readline interface on an input that already ended would wait for ever.
    if (this.ended && this.pending.length === 0) return Promise.resolve({ kind: "end" });
    const message = options.message === true;
    const rl = createInterface({
      input: this.input,
      output: this.output,
      terminal: true,
      history: message ? [...this.history] : [],
      historySize: message ? HISTORY_SIZE : 0,
      removeHistoryDuplicates: true,
    });
    const lines: string[] = [];
    let pasting = false;
    let softBreak = false;
    // Runs before readline's own keypress listener, so a line break's kind is known by the time
    // readline emits its "line".
    const onKey = (_text: string | undefined, key: Key | undefined) => {
      if (key?.name === "paste-start") pasting = true;
      else if (key?.name === "paste-end") pasting = false;
      else if (message && key?.meta && (key.name === "return" || key.name === "enter")) {
        // readline ignores Alt-Enter; a simulated Enter ends the line as a soft break.
        softBreak = true;
        rl.write(null, { name: "return" });
      }
    };
    this.input.prependListener("keypress", onKey);
    if (message) this.output.write(PASTE_MODE_ON);
    this.open = true;
    return new Promise<Answer>((resolve) => {
      let answer: Answer = { kind: "end" };
      rl.on("line", (typed) => {
        // Node 24's readline keeps a recalled multi-line history entry with "\r" where its line
        // breaks were (20 and 22 give them back as "\n"); a typed or pasted "\r" always ends a
        // line, so any "\r" left in a line is such a break.
        const text = message ? typed.replaceAll("\r", "\n") : typed;
        const soft = pasting || softBreak;
        softBreak = false;
        if (message && (soft || text.endsWith("\\"))) {
          lines.push(soft ? text : text.slice(0, -1));
          rl.setPrompt("… ");
          rl.prompt();
          return;
        }
        answer = { kind: "line", text: [...lines, text].join("\n") };
        rl.close();
      });
      rl.on("SIGINT", () => {
        answer = { kind: "interrupt", typed: [...lines, rl.line].join("\n") };
        this.output.write("^C\n");
        rl.close();
      });
      // Ctrl-D on an empty line, or the terminal went away: the end of input.
      rl.once("close", () => {
        this.open = false;
        this.input.off("keypress", onKey);
        if (message) this.output.write(PASTE_MODE_OFF);
        if (answer.kind === "end") this.output.write("\n");
        if (answer.kind === "line" && message) this.remember(answer.text);
        resolve(answer);
      });
      rl.setPrompt(prompt);
      rl.prompt();
      this.replay();
    });
  }

  /**
   * One key, for approvals. Keys this reader had already read before the question (the rest of
   * a chunk: type-ahead) are dropped, never taken as the answer.
   */
  key(prompt: string, keys: readonly string[]): Promise<KeyAnswer> {
    this.pending.length = 0;
    if (this.ended) return Promise.resolve({ kind: "end" });
    const input = this.input;
    const wasRaw = input.isRaw;
    input.setRawMode(true);
    input.resume();
    this.output.write(prompt);
    return new Promise<KeyAnswer>((resolve) => {
      const finish = (answer: KeyAnswer, echo: string) => {
        this.open = false;
        input.off("keypress", onKey);
        input.setRawMode(wasRaw);
        input.pause();
        this.output.write(`${echo}\n`);
        resolve(answer);
      };
      const onKey = (text: string | undefined, key: Key | undefined) => {
        if (key?.ctrl && key.name === "c") return finish({ kind: "interrupt" }, "^C");
        if (key?.ctrl && key.name === "d") return finish({ kind: "end" }, "");
        const pressed = (text ?? "").toLowerCase();
        if (!key?.ctrl && !key?.meta && keys.includes(pressed))
          finish({ kind: "key", key: pressed }, pressed);
      };
      input.on("keypress", onKey);
      this.open = true;
    });
  }

  close(): void {
    this.input.off("keypress", this.keep);
    this.input.off("end", this.onEnd);
    this.input.pause();
  }

  /** The newest message first in Up/Down, and appended to the history file. */
  private remember(text: string): void {
    if (text.trim() === "") return;
    this.history = [text, ...this.history.filter((h) => h !== text)].slice(0, HISTORY_SIZE);
    this.saved?.append(text);
  }
}
