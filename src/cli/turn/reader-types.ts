/** The shapes of the chat's input: a reader on a terminal or a pipe (line-reader.ts). */

import type { LiveArea } from "./live-area.js";

/** What a prompt ended with: the text (lines joined by "\n"), Ctrl-C (with what was typed), or the end of input. */
export type Answer =
  | { kind: "line"; text: string }
  | { kind: "interrupt"; typed: string }
  | { kind: "end" };

/** What a live question ended with: its `until` settled (with what was typed so far), or the end of input. */
export type LiveAnswer = { kind: "held"; typed: string } | { kind: "end" };

/** What a single-key question ended with. */
export type KeyAnswer = { kind: "key"; key: string } | { kind: "interrupt" } | { kind: "end" };

export interface AskOptions {
  /** A message of several lines (paste, Alt-Enter, a trailing "\"), kept in the history. */
  message?: boolean;
  /** Text already in the question when it opens (as if pasted: its line breaks stay). */
  initial?: string;
}

/** What a live question does with its keys while a turn runs. */
export interface LiveInput {
  /**
   * Enter: the whole message, sent now (a steer); false puts it back in the composer (a slash
   * command, which waits for the prompt). Not called for an all-blank message.
   */
  onSend(text: string): boolean;
  /**
   * Tab: the whole message, for after the turn (queued); false keeps it in the composer (the
   * queue is full). Not called for an all-blank message.
   */
  onQueue(text: string): boolean;
  /** Alt-Up on an empty composer: a text to edit instead (the newest queued message), or null. */
  onRecall(): string | null;
  /** Ctrl-C. */
  onInterrupt(): void;
  /** Once it settles the question closes, answering `held` with what was typed. */
  until: Promise<unknown>;
}

export interface LineReader {
  /** Whether a person is typing (stdin is a terminal). */
  readonly interactive: boolean;
  ask(prompt: string, options?: AskOptions): Promise<Answer>;
  /** One key of `keys` (lower case), no Enter; other keys are ignored. */
  key(prompt: string, keys: readonly string[]): Promise<KeyAnswer>;
  close(): void;
  /** Where output goes while a live question is open; null when the input cannot stay live. */
  readonly area: LiveArea | null;
  /**
   * A message question that stays open while a turn runs, its keys handled by `live`
   * (docs/cli.md, "Talking to a running turn"), until `live.until` settles.
   */
  askLive(prompt: string, live: LiveInput, initial?: string): Promise<LiveAnswer>;
}
