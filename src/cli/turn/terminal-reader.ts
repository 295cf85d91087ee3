import { createInterface, emitKeypressEvents, type Key } from "node:readline";
import type { HistoryFile } from "./history-file.js";
import { type ComposerView, LiveArea, rowsOf } from "./live-area.js";
import type {
  Answer,
  AskOptions,
  KeyAnswer,
  LineReader,
  LiveAnswer,
  LiveInput,
} from "./reader-types.js";

/** Asks the terminal to wrap pasted text in ESC[200~ … ESC[201~ (bracketed paste mode). */
const PASTE_MODE_ON = "\x1b[?2004h";
const PASTE_MODE_OFF = "\x1b[?2004l";
/** Lines readline keeps for Up/Down within one question. */
const HISTORY_SIZE = 500;
/** The prompt of a message's continuation lines. */
const MORE = "… ";

/** One `ask`: what it was asked with and how it answers, across the interfaces it opens. */
interface Asked {
  prompt: string;
  options: AskOptions & { live?: LiveInput };
  resolve: (answer: Answer | LiveAnswer) => void;
  /** A live question's `until` settled. */
  settled: boolean;
}

/** The open live question, stepping aside for an approval's key: what was typed is kept. */
interface Suspendable {
  suspend(): string;
  resume(typed: string): void;
}

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
  /** Output above a live question (only when the reader writes to a terminal). */
  readonly area: LiveArea | null;
  private live: Suspendable | null = null;
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
    private readonly output: NodeJS.WriteStream,
    private readonly saved: HistoryFile | null,
  ) {
    this.area = output.isTTY ? new LiveArea(output) : null;
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
    return new Promise<Answer>((resolve) => {
      const answered = resolve as (answer: Answer | LiveAnswer) => void; // never "held": not live
      this.question({ prompt, options, resolve: answered, settled: false }, options.initial ?? "");
    });
  }

  askLive(prompt: string, live: LiveInput, initial = ""): Promise<LiveAnswer> {
    if (this.ended && this.pending.length === 0) return Promise.resolve({ kind: "end" });
    return new Promise<LiveAnswer>((resolve) => {
      const answered = resolve as (answer: Answer | LiveAnswer) => void; // "held" or "end" only
      const options = { message: true, live };
      this.question({ prompt, options, resolve: answered, settled: false }, initial);
    });
  }

  /** One readline interface for `ask`; a live one is closed and opened again around an approval. */
  private question(asked: Asked, initial: string): void {
    const { prompt, options } = asked;
    const message = options.message === true;
    const live = options.live ?? null;
    const area = live ? this.area : null;
    const rl = createInterface({
      input: this.input,
      output: this.output,
      terminal: true,
      history: message ? [...this.history] : [],
      historySize: message ? HISTORY_SIZE : 0,
      removeHistoryDuplicates: true,
      // Tab queues a live message; without a completer readline would insert a tab.
      ...(live ? { completer: (line: string) => [[], line] } : {}),
    });
    const lines: string[] = [];
    let pasting = false;
    let softBreak = false;
    let echoRows = 0;
    let suspended = false;
    const typed = () => [...lines, rl.line].join("\n");
    const width = () => Math.max(20, this.output.columns || 80);
    const earlierRows = () =>
      lines.reduce((sum, line, i) => sum + rowsOf(`${i === 0 ? prompt : MORE}${line}`, width()), 0);
    const composer: ComposerView = {
      rowsAboveCursor: () => earlierRows() + rl.getCursorPos().rows,
      redraw: () => {
        for (const [i, line] of lines.entries())
          this.output.write(`${i === 0 ? prompt : MORE}${line}\n`);
        // readline redraws its line by first going up as many rows as its cursor was below the
        // line's start: give it those rows, so it lands on this one.
        const rows = rl.getCursorPos().rows;
        if (rows > 0) this.output.write("\n".repeat(rows));
        rl.prompt(true);
      },
    };
    /** Text typed in as a paste is: its line breaks continue the message. */
    const insert = (text: string) => {
      if (text === "") return;
      pasting = true;
      rl.write(text);
      pasting = false;
    };
    /** Empties the composer (its text was queued) and opens a fresh prompt. */
    const clear = () => {
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
      area?.detach(composer);
      lines.length = 0;
      rl.setPrompt(prompt);
      area?.attach(composer);
      rl.prompt();
    };
    // Runs before readline's own keypress listener, so a line break's kind is known by the time
    // readline emits its "line".
    const onKey = (_text: string | undefined, key: Key | undefined) => {
      if (key?.name === "paste-start") pasting = true;
      else if (key?.name === "paste-end") pasting = false;
      else if (message && key?.meta && (key.name === "return" || key.name === "enter")) {
        // readline ignores Alt-Enter; a simulated Enter ends the line as a soft break.
        softBreak = true;
        rl.write(null, { name: "return" });
      } else if (live && !pasting) {
        if (key?.name === "tab" && !key.ctrl && !key.meta) {
          const text = typed();
          if (text.trim() === "" || !live.onQueue(text)) return;
          clear();
          this.remember(text);
        } else if (key?.name === "up" && key.meta && typed() === "") {
          insert(live.onRecall() ?? "");
        } else if ((key?.name === "return" || key?.name === "enter") && !key.meta) {
          // The rows the echo of a sent message takes, measured at its end.
          rl.write(null, { ctrl: true, name: "e" });
          echoRows = earlierRows() + rl.getCursorPos().rows + 1;
        }
      }
    };
    this.input.prependListener("keypress", onKey);
    if (message) this.output.write(PASTE_MODE_ON);
    this.open = true;
    let answer: Answer | LiveAnswer = { kind: "end" };
    rl.on("line", (line) => {
      // Node 24's readline keeps a recalled multi-line history entry with "\r" where its line
      // breaks were (20 and 22 give them back as "\n"); a typed or pasted "\r" always ends a
      // line, so any "\r" left in a line is such a break.
      const text = message ? line.replaceAll("\r", "\n") : line;
      const soft = pasting || softBreak;
      softBreak = false;
      if (message && (soft || text.endsWith("\\"))) {
        lines.push(soft ? text : text.slice(0, -1));
        rl.setPrompt(MORE);
        rl.prompt();
        return;
      }
      const whole = [...lines, text].join("\n");
      if (live) {
        // Sent while the turn runs: the echo gives way to the chat's own "steer: …" line.
        area?.afterSend(composer, echoRows);
        lines.length = 0;
        rl.setPrompt(prompt);
        rl.prompt();
        if (whole.trim() === "") return;
        if (live.onSend(whole)) this.remember(whole);
        else insert(whole);
        return;
      }
      answer = { kind: "line", text: whole };
      rl.close();
    });
    rl.on("SIGINT", () => {
      if (live) return live.onInterrupt();
      answer = { kind: "interrupt", typed: typed() };
      this.output.write("^C\n");
      rl.close();
    });
    if (live) {
      this.live = {
        suspend: () => {
          suspended = true;
          const held = typed();
          rl.close();
          return held;
        },
        resume: (held) => {
          if (asked.settled) asked.resolve({ kind: "held", typed: held });
          else this.question(asked, held);
        },
      };
      void live.until.then(() => {
        asked.settled = true;
        if (suspended) return;
        answer = { kind: "held", typed: typed() };
        rl.close();
      });
    }
    // Ctrl-D on an empty line, or the terminal went away: the end of input.
    rl.once("close", () => {
      this.open = false;
      this.input.off("keypress", onKey);
      if (message) this.output.write(PASTE_MODE_OFF);
      if (live) {
        area?.detach(composer);
        this.live = null;
        if (suspended) return;
        // Ctrl-D while the turn runs quits nothing: the question opens again.
        if (answer.kind === "end" && !this.ended && !asked.settled) return this.question(asked, "");
      }
      if (answer.kind === "end" && !live) this.output.write("\n");
      if (answer.kind === "line" && message) this.remember(answer.text);
      asked.resolve(answer);
    });
    rl.setPrompt(prompt);
    area?.attach(composer);
    rl.prompt();
    insert(initial);
    this.replay();
  }

  /**
   * One key, for approvals. Keys this reader had already read before the question (the rest of
   * a chunk: type-ahead) are dropped, never taken as the answer.
   */
  key(prompt: string, keys: readonly string[]): Promise<KeyAnswer> {
    // A live question steps aside (its text kept) while the key is asked, then opens again.
    const live = this.live;
    const held = live?.suspend() ?? "";
    this.area?.suspend();
    const back = (answer: KeyAnswer) => {
      this.area?.resume();
      live?.resume(held);
      return answer;
    };
    this.pending.length = 0;
    if (this.ended) return Promise.resolve(back({ kind: "end" }));
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
        resolve(back(answer));
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
