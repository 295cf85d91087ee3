/**
 * search: the lines of the workspace's text files that match a regular expression, as
 * `path:line:text`, at most SEARCH_MATCHES, walking from `path` (default the workspace) in name
 * order, skipping `.git`, ignored files (gitignore.ts), symlinks, binary files and files over
 * SEARCH_FILE_BYTES. `glob` keeps only the files whose workspace-relative path it matches
 * (gitignore-style glob: `*.ts` anywhere, `src/**\/*.ts` from the workspace).
 */
import { lstat, opendir, readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import ignore, { type Ignore } from "ignore";
import { z } from "zod";
import { IgnoreRules } from "./gitignore.js";
import { looksBinary } from "./text-file.js";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { fsToolError, resolveExisting, type WorkspacePath } from "./workspace-path.js";

export const SEARCH_MATCHES = 200;
export const SEARCH_FILE_BYTES = 4 * 1024 * 1024;
/** A matching line longer than this is shown cut, so 200 matches stay a readable result. */
export const SEARCH_LINE_CHARS = 500;

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
    const glob = input.glob === undefined ? null : compileGlob(input.glob);
    const root = await resolveExisting(ctx.workspace, input.path ?? ".");
    return {
      title: `Search ${JSON.stringify(input.pattern)}${root.relative === "." ? "" : ` in ${root.shown}`}`,
      approval: null,
      async execute(run) {
        const found = await searchFrom(run.workspace, root, regex, glob, run.signal);
        return {
          status: run.signal.aborted ? "interrupted" : "completed",
          output: render(found),
          summary: `${found.matches.length}${found.more ? "+" : ""} matches`,
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

function compileGlob(glob: string): Ignore {
  try {
    const matcher = ignore().add(glob);
    matcher.ignores("probe"); // the package compiles lazily: fail here, not mid-walk
    return matcher;
  } catch {
    throw new ToolError("invalid glob");
  }
}

interface Found {
  matches: string[];
  more: boolean;
}

async function searchFrom(
  workspace: string,
  root: WorkspacePath,
  regex: RegExp,
  glob: Ignore | null,
  signal: AbortSignal,
): Promise<Found> {
  const found: Found = { matches: [], more: false };
  const stats = await lstat(root.absolute).catch((error) => {
    throw fsToolError(error, root.shown);
  });
  if (!stats.isDirectory()) {
    await searchFile(root.absolute, root.relative, regex, found);
    return found;
  }
  let rules = await IgnoreRules.forWorkspace(workspace);
  const parts = root.relative === "." ? [] : root.relative.split("/");
  for (let i = 1; i <= parts.length; i++)
    rules = await rules.enter(workspace, parts.slice(0, i).join("/"));
  await walk(workspace, root.relative === "." ? "" : root.relative, rules, {
    regex,
    glob,
    signal,
    found,
  });
  return found;
}

interface Walk {
  regex: RegExp;
  glob: Ignore | null;
  signal: AbortSignal;
  found: Found;
}

async function walk(workspace: string, folder: string, rules: IgnoreRules, run: Walk) {
  const names: { name: string; dir: boolean; file: boolean }[] = [];
  try {
    for await (const entry of await opendir(join(workspace, folder)))
      names.push({ name: entry.name, dir: entry.isDirectory(), file: entry.isFile() });
  } catch {
    return; // an unreadable folder is skipped, as grep -r does
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, dir, file } of names) {
    if (run.found.more || run.signal.aborted) return;
    const relative = folder === "" ? name : posix.join(folder, name);
    if (name === ".git" || rules.ignores(relative, dir)) continue;
    if (dir) await walk(workspace, relative, await rules.enter(workspace, relative), run);
    else if (file && (run.glob === null || run.glob.ignores(relative)))
      await searchFile(join(workspace, relative), relative, run.regex, run.found);
  }
}

async function searchFile(absolute: string, relative: string, regex: RegExp, found: Found) {
  let bytes: Buffer;
  try {
    const stats = await lstat(absolute);
    if (!stats.isFile() || stats.size > SEARCH_FILE_BYTES) return;
    bytes = await readFile(absolute);
  } catch {
    return; // vanished or unreadable since the listing: nothing to match
  }
  if (looksBinary(bytes)) return;
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop(); // the final newline ends the last line, it starts none
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, "");
    if (!regex.test(line)) continue;
    if (found.matches.length === SEARCH_MATCHES) {
      found.more = true;
      return;
    }
    const text = line.length > SEARCH_LINE_CHARS ? `${line.slice(0, SEARCH_LINE_CHARS)}…` : line;
    found.matches.push(`${relative}:${i + 1}:${text}`);
  }
}

function render(found: Found): string {
  if (found.matches.length === 0) return "No matches.";
  const note = found.more ? `\n[more matches not shown: the ${SEARCH_MATCHES}-match limit]` : "";
  return `${found.matches.join("\n")}${note}`;
}
