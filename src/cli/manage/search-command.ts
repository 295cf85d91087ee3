import { ClientError, RemoteError, type SearchHit } from "../../client/index.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { searchRow } from "../sessions/search-line.js";
import type { Terminal } from "../terminal.js";

/** session.search's bound on the query (protocol/schemas/search.ts). */
const QUERY_MAX_CHARS = 256;
/** As exec's and refresh's Ctrl-C: 128 + SIGINT. */
const INTERRUPTED_EXIT = 130;

/**
 * `mc-agent sessions search <text...>` (issue 42, capability `session.search`): each hit printed
 * as its page arrives, one row each (session, title, `#record`, snippet) or, with --json, one
 * JSON object a line. Ctrl-C cancels the page in flight through `operation.cancel` and exits 130
 * once the backend has confirmed; what was printed stays.
 */
export const searchCommand: Command = {
  spec: {
    usage: "mc-agent sessions search <text...> [--archived] [--json]",
    summary: "Find the sessions of this folder that mention a text (session.search).",
    help: [
      "Options:",
      "  --archived  Search the archived sessions instead",
      "  --json      One JSON object a line for each hit: {id, title, updated_at, record_index, snippet}",
      "  -h, --help",
      "",
      "Case-insensitive; searches titles, your messages, the assistant's and tool call titles",
      "(not tool output). Hits print as the backend finds them: the session, its title, #n the",
      'record (as "mc-agent show" numbers them) and the text around the match. The words are',
      "searched as one text, 1 to 256 characters. Ctrl-C cancels (exit 130).",
    ].join("\n"),
    options: { json: { type: "boolean" }, archived: { type: "boolean" } },
    rest: "text",
  },
  async run(args, term) {
    const query = args.positionals.join(" ");
    if (query.trim() === "" || query.length > QUERY_MAX_CHARS)
      throw new UsageError(`the text to search must be 1 to ${QUERY_MAX_CHARS} characters`);
    const json = args.values.json === true;
    const client = await connect(term, ["session.search", "operation.cancel"]);
    try {
      let found = 0;
      const print = (hit: SearchHit) => {
        found += 1;
        term.clearStatus();
        term.line(json ? JSON.stringify(hit) : searchRow(term, hit, query));
      };
      const pages = (signal: AbortSignal) =>
        collect(
          term,
          client.search(query, { signal, archived: args.values.archived === true }),
          print,
          () => found,
        );
      try {
        await interruptible(term, pages, () => term.status("Cancelling the search…"));
      } catch (error) {
        if (!cancelled(error)) throw error;
        term.clearStatus();
        term.note(`Search cancelled (operation_cancelled) after ${hitCount(found)}.`);
        return INTERRUPTED_EXIT;
      }
      term.clearStatus();
      if (!json)
        term.note(found === 0 ? "No session of this folder mentions it." : `${hitCount(found)}.`);
      return 0;
    } finally {
      await client.close();
    }
  },
};

async function collect(
  term: Terminal,
  pages: AsyncGenerator<SearchHit[]>,
  print: (hit: SearchHit) => void,
  found: () => number,
): Promise<void> {
  term.status("Searching…");
  for await (const page of pages) {
    for (const hit of page) print(hit);
    term.status(`Searching… ${hitCount(found())} so far (Ctrl-C cancels)`);
  }
}

function hitCount(n: number): string {
  return `${n} ${n === 1 ? "hit" : "hits"}`;
}

/** The backend cancelled the page in flight, or Ctrl-C came between pages (none was sent). */
function cancelled(error: unknown): boolean {
  if (error instanceof RemoteError) return error.code === "operation_cancelled";
  return error instanceof ClientError && error.code === "aborted";
}
