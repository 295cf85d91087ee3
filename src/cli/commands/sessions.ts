import type { DiscoveryResult, SessionEntry } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { connectWith } from "../connect.js";
import {
  archiveCommand,
  archivedCommand,
  deleteCommand,
  renameCommand,
  unarchiveCommand,
  usageCommand,
} from "../manage/manage-commands.js";
import { searchCommand } from "../manage/search-command.js";
import { costCell } from "../manage/usd.js";
import { listSessions } from "../sessions/session-list.js";
import { workspaceHint } from "../sessions/workspace-hint.js";
import { plainLength, type Terminal, table } from "../terminal.js";
import { shortTime } from "./format.js";

/** Rows the table shows without --limit or --all. */
const DEFAULT_LIMIT = 20;

export const sessionsCommand: Command = {
  spec: {
    usage:
      "mc-agent sessions [--limit N | --all] [--json] | mc-agent sessions rename|archive|unarchive|archived|delete|usage|search ...",
    summary: "List the saved sessions of the current folder, newest first (session.discover).",
    help: [
      "Options:",
      `  -n, --limit <N>  Show the N most recent (default ${DEFAULT_LIMIT})`,
      "  --all            Show every session",
      "  --json           Print the validated result as JSON, every session, newest first",
      "  -h, --help",
      "",
      "While discovery runs, a progress line shows on a terminal; rows are listed only once the",
      "backend has validated the complete inventory, then sorted by last update (local time).",
      'Ctrl-C cancels. Continue one with "mc-agent resume <id>" (a unique start of the ID is',
      'enough), read one with "mc-agent show <id>". Sessions belong to the exact folder they ran',
      "in; in a subfolder of a workspace the workspace's own sessions are pointed to.",
      "The COST column is each shown session's known cost in USD (session.usage): `+` when some",
      "turn's price is unknown, `?` when none is known.",
      "",
      'Manage one: "mc-agent sessions rename|archive|unarchive|archived|delete|usage --help";',
      'find one: "mc-agent sessions search <text>".',
    ].join("\n"),
    options: {
      json: { type: "boolean" },
      limit: { type: "string", short: "n" },
      all: { type: "boolean" },
    },
  },
  subcommands: {
    rename: renameCommand,
    archive: archiveCommand,
    unarchive: unarchiveCommand,
    archived: archivedCommand,
    delete: deleteCommand,
    usage: usageCommand,
    search: searchCommand,
  },
  async run(args, term) {
    const limit = limitOf(args.values.limit, args.values.all === true);
    const client = await connectWith(
      term,
      ["session.discover", "operation.cancel"],
      ["session.manage"],
    );
    let result: DiscoveryResult;
    const costs = new Map<string, string>();
    try {
      result = await listSessions(term, client);
      if (!args.values.json && client.has("session.manage"))
        for (const s of result.sessions.slice(0, limit))
          costs.set(s.id, await client.usage(s.id).then(costCell, () => ""));
    } finally {
      await client.close();
    }
    if (args.values.json) {
      term.line(JSON.stringify({ sessions: result.sessions, notices: result.notices }, null, 2));
      return 0;
    }
    printTable(term, result, limit, client.has("session.manage") ? costs : null);
    const hint = await workspaceHint(term, process.cwd());
    if (hint) term.line(hint);
    return 0;
  },
};

function limitOf(raw: string | boolean | undefined, all: boolean): number {
  if (all) {
    if (raw !== undefined) throw new UsageError("--limit and --all do not go together");
    return Number.POSITIVE_INFINITY;
  }
  if (raw === undefined || typeof raw === "boolean") return DEFAULT_LIMIT;
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new UsageError("--limit must be a whole number from 1");
  return Number(raw);
}

function printTable(
  term: Terminal,
  result: DiscoveryResult,
  limit: number,
  costs: Map<string, string> | null,
): void {
  if (result.sessions.length === 0) term.line("No saved sessions for this folder.");
  else {
    const names = costs
      ? ["ID", "TITLE", "UPDATED", "COST", "BUSY"]
      : ["ID", "TITLE", "UPDATED", "BUSY"];
    const header = names.map((h) => term.bold(h));
    const rows = result.sessions
      .slice(0, limit)
      .map((s) => row(term, s, costs === null ? null : (costs.get(s.id) ?? "")));
    for (const line of table([header, ...rows], plainLength)) term.line(line);
    const hidden = result.sessions.length - rows.length;
    if (hidden > 0)
      term.line(
        term.dim(
          `… ${hidden} older ${hidden === 1 ? "session" : "sessions"} (--all shows every one, --limit N more)`,
        ),
      );
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

function row(term: Terminal, s: SessionEntry, cost: string | null): string[] {
  const id = s.cwd === "unverified" ? `${s.id} ${term.yellow("?")}` : s.id;
  const title = s.title ?? term.dim("(untitled)");
  const busy = s.busy ? term.yellow("busy") : "";
  const when = shortTime(s.updated_at);
  return cost === null
    ? [id, fitChars(title, 60), when, busy]
    : [id, fitChars(title, 60), when, cost, busy];
}
