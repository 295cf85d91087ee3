import type { AgentClient } from "../../client/index.js";
import { isTitle } from "../../protocol/schemas/manage.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { resolveSessionRef } from "../sessions/session-ref.js";
import type { Terminal } from "../terminal.js";
import { lineReader } from "../turn/line-reader.js";
import { formatUsd } from "./usd.js";

/**
 * `mc-agent sessions rename|archive|unarchive|delete|usage` (issue 42, capability
 * `session.manage`): one session of the current folder each, named by its ID or a unique start
 * of it (archive, unarchive and delete of an archived session take the exact ID: the archive is
 * not listed). Archive and delete ask first on a terminal; without one, --yes is needed.
 */
const CAPS = ["session.discover", "session.manage", "operation.cancel"] as const;

async function withClient(term: Terminal, work: (client: AgentClient) => Promise<number>) {
  const client = await connect(term, [...CAPS]);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** y on a terminal, or --yes; anything else declines. */
async function confirmed(term: Terminal, yes: boolean, question: string): Promise<boolean> {
  if (yes) return true;
  const reader = lineReader(process.stdin, term.io.err);
  try {
    if (!reader.interactive) {
      term.note("No terminal to ask on: pass --yes to go ahead.");
      return false;
    }
    const answer = await reader.key(`${question} [y/N] `, ["y", "n"]);
    return answer.kind === "key" && answer.key === "y";
  } finally {
    reader.close();
  }
}

const YES = { yes: { type: "boolean", short: "y" } } as const;

export const renameCommand: Command = {
  spec: {
    usage: "mc-agent sessions rename <id> <title...>",
    summary: "Give a session of this folder a title (one line, at most 200 characters).",
    help: "The title is what session lists show; the last rename wins.",
    options: {},
    positionals: ["id"],
    rest: "title",
  },
  run: (args, term) =>
    withClient(term, async (client) => {
      const title = args.positionals.slice(1).join(" ").trim();
      if (!isTitle(title))
        throw new UsageError("the title must be one line of 1 to 200 characters");
      const id = await resolveSessionRef(term, client, args.positionals[0] as string);
      const session = await client.rename(id, title);
      term.line(`${session.id}: ${session.title ?? title}`);
      return 0;
    }),
};

function moveCommand(direction: "archive" | "unarchive"): Command {
  const archive = direction === "archive";
  return {
    spec: {
      usage: `mc-agent sessions ${direction} <id>${archive ? " [--yes]" : ""}`,
      summary: archive
        ? "Put a session away: it leaves every list and can be brought back with unarchive."
        : "Bring an archived session back among this folder's sessions.",
      help: archive
        ? '  -y, --yes  Archive without asking\n\nSee archived ones with "mc-agent sessions archived".'
        : 'Takes the exact ID (see "mc-agent sessions archived").',
      options: archive ? YES : {},
      positionals: ["id"],
    },
    run: (args, term) =>
      withClient(term, async (client) => {
        const ref = args.positionals[0] as string;
        const id = archive ? await resolveSessionRef(term, client, ref) : ref;
        if (archive && !(await confirmed(term, args.values.yes === true, `Archive ${id}?`))) {
          term.note("Nothing was archived.");
          return 1;
        }
        await (archive ? client.archive(id) : client.unarchive(id));
        term.line(`${id}: ${archive ? "archived" : "back among this folder's sessions"}`);
        return 0;
      }),
  };
}

export const archiveCommand = moveCommand("archive");
export const unarchiveCommand = moveCommand("unarchive");

export const archivedCommand: Command = {
  spec: {
    usage: "mc-agent sessions archived [--json]",
    summary: "List this folder's archived sessions (session.archived).",
    help: "  --json  Print them as JSON",
    options: { json: { type: "boolean" } },
  },
  run: (args, term) =>
    withClient(term, async (client) => {
      const sessions = await interruptible(term, (signal) => client.archivedSessions({ signal }));
      if (args.values.json) term.line(JSON.stringify({ sessions }, null, 2));
      else if (sessions.length === 0) term.line("No archived sessions for this folder.");
      else
        for (const s of sessions)
          term.line(`${s.id}  ${s.updated_at ?? ""}  ${s.title ?? "(untitled)"}`);
      return 0;
    }),
};

export const deleteCommand: Command = {
  spec: {
    usage: "mc-agent sessions delete <id> [--yes]",
    summary: "Delete a session for good: its history, checkpoints and what only it used.",
    help: "  -y, --yes  Delete without asking (needed without a terminal)\n\nAn archived session is named by its exact ID.",
    options: YES,
    positionals: ["id"],
  },
  run: (args, term) =>
    withClient(term, async (client) => {
      const id = await resolveSessionRef(term, client, args.positionals[0] as string);
      const question = `Delete ${id} for good (its history and checkpoints)?`;
      if (!(await confirmed(term, args.values.yes === true, question))) {
        term.note("Nothing was deleted.");
        return 1;
      }
      await client.deleteSession(id);
      term.line(`${id}: deleted`);
      return 0;
    }),
};

export const usageCommand: Command = {
  spec: {
    usage: "mc-agent sessions usage <id> [--json]",
    summary: "What a session used: tokens and cost in USD (turns of unknown price counted apart).",
    help: "  --json  Print session.usage's result",
    options: { json: { type: "boolean" } },
    positionals: ["id"],
  },
  run: (args, term) =>
    withClient(term, async (client) => {
      const id = await resolveSessionRef(term, client, args.positionals[0] as string);
      const usage = await client.usage(id);
      if (args.values.json) {
        term.line(JSON.stringify(usage, null, 2));
        return 0;
      }
      const t = usage.usage;
      term.line(`${usage.id}${usage.archived ? " (archived)" : ""}: ${usage.turns} turn(s)`);
      term.line(
        `  tokens: ${t.input_tokens} in (${t.cached_input_tokens} cached), ${t.output_tokens} out`,
      );
      const unknown = usage.unknown_cost_turns;
      term.line(
        `  cost: ${formatUsd(usage.cost_usd)}${usage.partial ? ` + ${unknown} turn(s) of unknown price` : ""}`,
      );
      return 0;
    }),
};
