import { errorCodeOf } from "../../client/index.js";
import type { Command } from "../command.js";
import type { Terminal } from "../terminal.js";
import { HumanView } from "../turn/human-view.js";
import { JsonView } from "../turn/json-view.js";
import { lineReader } from "../turn/line-reader.js";
import { promptInput } from "../turn/prompt-input.js";
import { exitCodeOf, runTurn } from "../turn/run-turn.js";
import {
  openTurnSession,
  permissionsOf,
  TURN_OPTIONS,
  TURN_OPTIONS_HELP,
} from "../turn/turn-session.js";

export const execCommand: Command = {
  spec: {
    usage: "mc-agent exec [options] <prompt...> | -",
    summary: "Run one turn of the agent in the current folder and print its reply.",
    help: [
      "Options:",
      ...TURN_OPTIONS_HELP,
      "  --json                 Print the turn's events and its result as JSON lines",
      "  -h, --help",
      "",
      "The reply streams to stdout; tool calls, shell output and the summary go to stderr.",
      "Edits and commands need your approval under --permissions ask: a y/n/a question on the",
      "terminal (allow once / deny / allow for the session). Without a terminal to ask on they",
      "are denied; choose --permissions accept_edits or full_access to allow them unasked.",
      "Ctrl-C interrupts the turn and waits for it to end; a second Ctrl-C exits at once.",
      'The prompt "-" reads it from stdin (git diff | mc-agent exec - ); a prompt that starts',
      'with "-" goes after "--" (mc-agent exec -- "-v: what does it do?").',
      "Exit codes: 0 completed, 1 failed or refused, 2 usage, 130 interrupted.",
    ].join("\n"),
    options: { ...TURN_OPTIONS, json: { type: "boolean" } },
    rest: "prompt",
  },
  async run(args, term) {
    const permissions = permissionsOf(args.values.permissions);
    const json = args.values.json === true;
    const input = await promptInput(args.positionals, process.stdin);
    const opened = await openTurnSession(term, {
      ...stringOption("session", args.values.session),
      ...stringOption("model", args.values.model),
      ...stringOption("effort", args.values.effort),
    }).catch((error: unknown) => refused(term, json, error));
    const { client, sessionId } = opened;
    const view = json ? new JsonView(term) : new HumanView(term, { header: true });
    // Approvals are asked only where a person can answer: stdin a terminal.
    const reader = process.stdin.isTTY ? lineReader(process.stdin, term.io.err) : null;
    try {
      const result = await runTurn(client, input, { term, view, reader, permissions }).catch(
        (error: unknown) => refused(term, json, error),
      );
      view.result(result);
      if (!json) continueHint(term, sessionId);
      return exitCodeOf(result);
    } finally {
      reader?.close();
      await client.close();
    }
  },
};

function stringOption<K extends string>(key: K, value: string | boolean | undefined) {
  return typeof value === "string" ? ({ [key]: value } as Record<K, string>) : {};
}

/** With --json, a refusal is also a JSON line; the one-line report follows on stderr. */
function refused(term: Terminal, json: boolean, error: unknown): never {
  const code = errorCodeOf(error) ?? (error as { code?: string }).code;
  if (json && code)
    term.line(JSON.stringify({ error: { code, message: (error as Error).message } }));
  throw error;
}

function continueHint(term: Terminal, sessionId: string): void {
  term.note(
    term.paintNote(`Continue this session with --session ${sessionId} (exec or chat).`, "2"),
  );
}
