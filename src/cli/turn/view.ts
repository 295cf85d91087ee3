import type { TurnEventParams, TurnResult } from "../../client/index.js";

/** How a turn is shown: the human view on the terminal, or NDJSON for scripts. */
export interface TurnView {
  /** Whether tool calls are on the terminal already ("▸ Edit a.ts"), so a prompt need not repeat them. */
  readonly showsTools: boolean;
  event(params: TurnEventParams): void;
  /** Ends any half-written line before something else (a prompt, a note) takes the terminal. */
  pause(): void;
  /** The turn's result; every event came before it. `exit`: what `exec` ends with. */
  result(result: TurnResult, exit?: TurnExit): void;
}

/** How `exec` ends after a turn: its exit code, and approvals denied because nobody could answer. */
export interface TurnExit {
  code: number;
  deniedUnasked: number;
}
