/**
 * search: the lines of the workspace's text files that match a regular expression, as
 * `path:line:text`, at most SEARCH_MATCHES, walking from `path` (default the workspace) in name
 * order, skipping `.git`, ignored files (gitignore.ts), symlinks, binary files and files over
 * SEARCH_FILE_BYTES. `glob` keeps only the files whose workspace-relative path it matches
 * (gitignore-style glob: `*.ts` anywhere, `src/**\/*.ts` from the workspace).
 */
import { Worker } from "node:worker_threads";
import ignore from "ignore";
import { z } from "zod";
import { type Found, SEARCH_MATCHES } from "./search-walk.js";
import type { SearchJob, SearchReply } from "./search-worker.js";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { resolveExisting } from "./workspace-path.js";

export { SEARCH_FILE_BYTES, SEARCH_LINE_CHARS, SEARCH_MATCHES } from "./search-walk.js";

/** A search still walking after this is ended (a pathological pattern, a gigantic tree). */
const SEARCH_TIME_MS = 60_000;

const SearchInput = z.strictObject({
  pattern: z.string().min(1).describe("JavaScript regular expression matched against each line."),
  path: z.string().optional().describe("File or folder to search (default: the workspace)."),
  glob: z.string().min(1).optional().describe('Only files whose path matches, e.g. "*.ts".'),
});

export const searchTool: Tool<z.infer<typeof SearchInput>> = {
  name: "search",
  kind: "read",
  description:
    "Search the workspace's text files for lines matching a regular expression (JavaScript " +
    `syntax). Prints "path:line:text", at most ${SEARCH_MATCHES} matches; skips .git, ` +
    "gitignored files and binary files.",
  input: SearchInput,
  async plan(raw, ctx) {
    const input = parseToolInput(SearchInput, raw);
    const regex = compilePattern(input.pattern);
    if (input.glob !== undefined) compileGlob(input.glob);
    const root = await resolveExisting(ctx.workspace, input.path ?? ".");
    return {
      title: `Search ${JSON.stringify(input.pattern)}${root.relative === "." ? "" : ` in ${root.shown}`}`,
      approval: null,
      async execute(run) {
        const job: SearchJob = {
          workspace: run.workspace,
          root,
          source: regex.source,
          flags: regex.flags,
          glob: input.glob ?? null,
        };
        const found = await searchInThread(job, run.signal);
        if (found === "interrupted") {
          return {
            status: "interrupted",
            output: "[interrupted]",
            summary: "interrupted",
            exit_code: null,
            diff: null,
          };
        }
        return {
          status: "completed",
          output: render(found),
          summary: matchCount(found.matches.length, found.more),
          exit_code: null,
          diff: null,
        };
      },
    };
  },
};

/** Unicode mode first (what a modern pattern expects); the legacy syntax when that refuses it. */
function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch (error) {
      throw new ToolError(`invalid regular expression: ${(error as Error).message}`);
    }
  }
}

/** Fails at planning, not in the thread (the package compiles rules lazily). */
function compileGlob(glob: string): void {
  try {
    ignore().add(glob).ignores("probe");
  } catch {
    throw new ToolError("invalid glob");
  }
}

/** Runs the walk in its own thread (search-worker.ts), ended by an abort or the time bound. */
function searchInThread(job: SearchJob, signal: AbortSignal): Promise<Found | "interrupted"> {
  if (signal.aborted) return Promise.resolve("interrupted");
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL("./search-worker.js", import.meta.url), { workerData: job });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void thread.terminate();
      outcome();
    };
    const onAbort = () => settle(() => resolve("interrupted"));
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new ToolError(
              `search took longer than ${SEARCH_TIME_MS} ms; narrow the pattern or the path`,
            ),
          ),
        ),
      SEARCH_TIME_MS,
    );
    signal.addEventListener("abort", onAbort, { once: true });
    thread.on("message", (reply: SearchReply) =>
      settle(() => (reply.ok ? resolve(reply) : reject(new ToolError(reply.message)))),
    );
    thread.on("error", () => settle(() => reject(new ToolError("search failed"))));
    thread.on("exit", () => settle(() => reject(new ToolError("search failed"))));
  });
}

function render(found: Found): string {
  if (found.matches.length === 0) return "No matches.";
  const note = found.more ? `\n[more matches not shown: the ${SEARCH_MATCHES}-match limit]` : "";
  return `${found.matches.join("\n")}${note}`;
}

/** "1 match", "3 matches", "200+ matches". */
function matchCount(count: number, more: boolean): string {
  return `${count}${more ? "+" : ""} ${count === 1 && !more ? "match" : "matches"}`;
}
