import type { TurnEventParams, TurnResult } from "../../client/index.js";
import type { Terminal } from "../terminal.js";
import type { TurnView } from "./view.js";

/**
 * `--json`: one JSON object a line on stdout, as they happen: each turn.event's params
 * (`{"request_id","turn_id","seq","event"}`), then `{"result": ...}`. Prompts and notes stay
 * on stderr.
 */
export class JsonView implements TurnView {
  readonly showsTools = false;
  constructor(private readonly term: Terminal) {}

  event(params: TurnEventParams): void {
    this.term.line(JSON.stringify(params));
  }

  pause(): void {}

  result(result: TurnResult): void {
    this.term.line(JSON.stringify({ result }));
  }
}
