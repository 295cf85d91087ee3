import type { AgentClient, SessionEntry } from "../../client/index.js";
import type { Command } from "../command.js";
import { connect } from "../connect.js";
import { ActionableError } from "../failure.js";
import { revertFlow } from "../revert/revert-flow.js";
import { liveTurns } from "../revert/session-turns.js";
import { listSessions } from "../sessions/session-list.js";
import { resolveSessionRef } from "../sessions/session-ref.js";
import type { Terminal } from "../terminal.js";
import { lineReader } from "../turn/line-reader.js";

export const undoCommand: Command = {
  spec: {
    usage: "mc-agent undo [--session <id>] [--yes] [--force] [--dry-run]",
    summary: "Undo the last turn of this folder's latest session: its files go back as they were.",
    help: [
      "Options:",
      "  -s, --session <id>  That session of this folder (an ID or a unique start of it);",
      '                      default: the most recently updated one (as "resume --last")',
      "  --dry-run           Only print what would change: the files and a diff each",
      "  -y, --yes           Undo without asking",
      "  --force             Also overwrite files changed since the session's last turn ended",
      "  -h, --help",
      "",
      "Prints the dry run (each file: removed, restored, recreated, kept or skipped, then the",
      "diffs) on stdout, asks y/n on a terminal (without one, --yes is needed), then restores",
      "every file the turn changed, the shell's changes included. Files changed outside the",
      "session's turns are named; overwriting them is a second question (or --force).",
      "Exit codes: 0 undone (or the dry run printed), 1 nothing to undo, declined or refused",
      "(workspace_changed without --force, checkpoint_missing, …), 2 usage error.",
    ].join("\n"),
    options: {
      session: { type: "string", short: "s" },
      yes: { type: "boolean", short: "y" },
      force: { type: "boolean" },
      "dry-run": { type: "boolean" },
    },
  },
  async run(args, term) {
    const client = await connect(term, [
      "session.discover",
      "session.history",
      "session.record",
      "turn.revert",
      "operation.cancel",
    ]);
    const reader = lineReader(process.stdin, term.io.err);
    try {
      const ref = args.values.session;
      const sessionId =
        typeof ref === "string"
          ? await resolveSessionRef(term, client, ref)
          : await latest(term, client);
      const turn = (await liveTurns(client, sessionId)).at(-1);
      if (!turn) {
        term.note(`Nothing to undo: session ${sessionId} has no turn left to undo.`);
        return 1;
      }
      const dryRun = args.values["dry-run"] === true;
      const yes = args.values.yes === true;
      if (!dryRun && !yes && !reader.interactive)
        term.note("No terminal to ask on: the dry run follows; pass --yes to undo.");
      const outcome = await revertFlow(term, client, reader, sessionId, turn.id, {
        print: (text) => term.line(text),
        color: term.color,
        yes,
        force: args.values.force === true,
        dryRun,
        what: `the last turn of session ${sessionId} ("${turn.firstLine}")`,
      });
      if (outcome === "declined") term.note("Nothing was undone.");
      return outcome === "reverted" || outcome === "dry_run" ? 0 : 1;
    } finally {
      reader.close();
      await client.close();
    }
  },
};

/** resume --last's choice: this folder's most recently updated session. */
async function latest(term: Terminal, client: AgentClient): Promise<string> {
  const { sessions } = await listSessions(term, client);
  const newest = sessions[0] as SessionEntry | undefined;
  if (!newest)
    throw new ActionableError(
      "session_missing",
      "No saved session for this folder to undo",
      'Start one with "mc-agent chat".',
    );
  return newest.id;
}
