/** The shapes of the chat's input: a reader on a terminal or a pipe (line-reader.ts). */

/** What a prompt ended with: the text (lines joined by "\n"), Ctrl-C (with what was typed), or the end of input. */
export type Answer =
  | { kind: "line"; text: string }
  | { kind: "interrupt"; typed: string }
  | { kind: "end" };

/** What a single-key question ended with. */
export type KeyAnswer = { kind: "key"; key: string } | { kind: "interrupt" } | { kind: "end" };

export interface AskOptions {
  /** A message of several lines (paste, Alt-Enter, a trailing "\"), kept in the history. */
  message?: boolean;
}

export interface LineReader {
  /** Whether a person is typing (stdin is a terminal). */
  readonly interactive: boolean;
  ask(prompt: string, options?: AskOptions): Promise<Answer>;
  /** One key of `keys` (lower case), no Enter; other keys are ignored. */
  key(prompt: string, keys: readonly string[]): Promise<KeyAnswer>;
  close(): void;
}
