import type { DiscoveryEvent, DiscoveryResult, SessionEntry } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { plainLength, type Terminal, table } from "../terminal.js";
import { shortTime } from "./format.js";

export const sessionsCommand: Command = {
  spec: {
    usage: "mc-agent sessions [--json]",
    summary: "List the saved sessions of the current folder (session.discover).",
    help: [
      "Options:",
      "  --json    Print the validated result as JSON (for scripts)",
      "  -h, --help",
      "",
      "While discovery runs, a progress line shows on a terminal; rows are listed only once the",
      "backend has validated the complete inventory. Ctrl-C cancels. Open one with",
      '"mc-agent show <id>".',
    ].join("\n"),
    options: { json: { type: "boolean" } },
  },
  async run(args, term) {
    const client = await connect(term, ["session.discover", "operation.cancel"]);
    try {
      const result = await interruptible(term, (signal) =>
        client.discoverSessions({ signal, onProgress: (e) => showProgress(term, e) }),
      );
      term.clearStatus();
      if (args.values.json)
        term.line(JSON.stringify({ sessions: result.sessions, notices: result.notices }, null, 2));
      else printTable(term, result);
      return 0;
    } finally {
      await client.close();
    }
  },
};

function showProgress(term: Terminal, event: DiscoveryEvent): void {
  if (event.kind === "restart") {
    const why =
      event.reason === "stale_revision"
        ? "the store changed during the scan"
        : "the backend child was exhausted";
    term.status(`Discovering sessions: ${why}; starting again…`);
    return;
  }
  const rows = event.provisional.length;
  term.status(
    `Discovering sessions… ${rows} provisional ${rows === 1 ? "row" : "rows"}, ${event.pages} ${event.pages === 1 ? "step" : "steps"} (${event.progress})`,
  );
}

function printTable(term: Terminal, result: DiscoveryResult): void {
  if (result.sessions.length === 0) term.line("No saved sessions for this folder.");
  else {
    const header = ["ID", "TITLE", "UPDATED", "BUSY"].map((h) => term.bold(h));
    const rows = result.sessions.map((s) => row(term, s));
    for (const line of table([header, ...rows], plainLength)) term.line(line);
  }
  for (const notice of result.notices) {
    if (notice.code === "cwd_unverified")
      term.line(
        `? ${notice.count} unverified: ${notice.count === 1 ? "a history records" : "histories record"} no folder; open only what you recognise.`,
      );
    else
      term.line(
        `${notice.count} ${notice.count === 1 ? "history was" : "histories were"} left out as invalid or unsafe.`,
      );
  }
}

function row(term: Terminal, s: SessionEntry): string[] {
  const id = s.cwd === "unverified" ? `${s.id} ${term.yellow("?")}` : s.id;
  const title = s.title ?? term.dim("(untitled)");
  return [id, fitChars(title, 60), shortTime(s.updated_at), s.busy ? term.yellow("busy") : ""];
}
