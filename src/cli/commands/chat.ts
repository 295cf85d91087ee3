import { ClientError, type Permissions } from "../../client/index.js";
import type { Command } from "../command.js";
import { reportFailure } from "../failure.js";
import type { Terminal } from "../terminal.js";
import { HumanView } from "../turn/human-view.js";
import { type LineReader, lineReader } from "../turn/line-reader.js";
import { markdownRenderer } from "../turn/markdown.js";
import { runTurn } from "../turn/run-turn.js";
import {
  openTurnSession,
  permissionsOf,
  TURN_OPTIONS,
  TURN_OPTIONS_HELP,
  type TurnSession,
} from "../turn/turn-session.js";

export const chatCommand: Command = {
  spec: {
    usage: "mc-agent chat [options]",
    summary: "Talk with the agent in the current folder: each line you type is one turn.",
    help: [
      "Options:",
      ...TURN_OPTIONS_HELP,
      "  -h, --help",
      "",
      "All turns go to one session (new unless --session). Edits and commands need your",
      "approval under --permissions ask (y: once, a: for the session, n: deny).",
      "Ctrl-C during a turn interrupts it; Ctrl-C or Ctrl-D at an empty prompt, or /exit, quits.",
    ].join("\n"),
    options: TURN_OPTIONS,
  },
  async run(args, term) {
    const permissions = permissionsOf(args.values.permissions);
    const session = await openTurnSession(term, {
      ...(typeof args.values.session === "string" ? { session: args.values.session } : {}),
      ...(typeof args.values.model === "string" ? { model: args.values.model } : {}),
      ...(typeof args.values.effort === "string" ? { effort: args.values.effort } : {}),
    });
    const reader = lineReader(process.stdin, term.io.out);
    try {
      greet(term, session, permissions, reader);
      await converse(term, session, reader, permissions);
      return 0;
    } finally {
      reader.close();
      await session.client.close();
    }
  },
};

function greet(
  term: Terminal,
  session: TurnSession,
  permissions: Permissions | undefined,
  reader: LineReader,
): void {
  if (!reader.interactive) return;
  const effort = session.effort ? ` (${session.effort})` : "";
  term.note(
    term.paintNote(
      `mc-agent chat · ${session.model}${effort} · ${permissions ?? "ask"} · session ${session.sessionId}\nType a message; Ctrl-C interrupts a turn; Ctrl-D or /exit quits.`,
      "2",
    ),
  );
}

/** The loop: one line, one turn, until /exit, Ctrl-D or Ctrl-C at an empty prompt. */
async function converse(
  term: Terminal,
  session: TurnSession,
  reader: LineReader,
  permissions: Permissions | undefined,
): Promise<void> {
  const prompt = term.bold("› ");
  const markdown = await markdownRenderer(term);
  for (;;) {
    const answer = await reader.ask(prompt);
    if (answer.kind === "end") return;
    if (answer.kind === "interrupt") {
      if (answer.typed === "") return;
      continue; // Ctrl-C with text on the line drops that text, as shells do
    }
    const input = answer.text.trim();
    if (input === "") continue;
    if (input === "/exit" || input === "/quit") return;
    const view = new HumanView(term, { header: false, markdown });
    try {
      const result = await runTurn(session.client, input, { term, view, reader, permissions });
      view.result(result);
    } catch (error) {
      // A refused turn (busy, session_locked, …) is reported and the conversation goes on;
      // a child that died or broke the protocol ends it.
      if (error instanceof ClientError) throw error;
      view.pause();
      reportFailure(error, term);
    }
  }
}
