import type { TurnEventParams, TurnResult } from "../../client/index.js";
import type { Failure } from "../failure.js";
import type { Terminal } from "../terminal.js";
import type { ExecJsonLine } from "./json-lines.js";
import type { TurnExit, TurnView } from "./view.js";

/**
 * `--json`: one JSON object a line on stdout, as they happen, each with a `type`
 * (json-lines.ts has their schema): the turn's events, then its result; an error line instead
 * when the turn could not run. Prompts and notes stay on stderr.
 */
export class JsonView implements TurnView {
  readonly showsTools = false;
  constructor(private readonly term: Terminal) {}

  event({ turn_id, seq, event }: TurnEventParams): void {
    this.line({ ...event, turn_id, seq });
  }

  pause(): void {}

  result(result: TurnResult, exit: TurnExit = { code: 0, deniedUnasked: 0 }): void {
    this.line({
      type: "result",
      ...result,
      exit_code: exit.code,
      denied_unasked: exit.deniedUnasked,
    });
  }

  error(failure: Failure): void {
    const { code, message, advice, exit } = failure;
    this.line({ type: "error", code, message, advice, exit_code: exit });
  }

  private line(line: ExecJsonLine): void {
    this.term.line(JSON.stringify(line));
  }
}
