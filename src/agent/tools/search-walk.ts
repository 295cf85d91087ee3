/**
 * The walk behind `search` (it runs in search-worker.ts): from a root in name order, skipping
 * `.git`, ignored paths (gitignore.ts), symlinks, binary files and files over SEARCH_FILE_BYTES,
 * collecting `path:line:text` up to SEARCH_MATCHES.
 */
import { lstat, opendir } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Ignore } from "ignore";
import { clipChars } from "../../protocol/text-cut.js";
import { IgnoreRules } from "./gitignore.js";
import { openIfRegular } from "./regular-file.js";
import { looksBinary } from "./text-file.js";
import { fsToolError, type WorkspacePath } from "./workspace-path.js";

export const SEARCH_MATCHES = 200;
export const SEARCH_FILE_BYTES = 4 * 1024 * 1024;
/** A matching line longer than this is shown cut, so 200 matches stay a readable result. */
export const SEARCH_LINE_CHARS = 500;

export interface Found {
  matches: string[];
  more: boolean;
}

export async function searchFrom(
  workspace: string,
  root: WorkspacePath,
  regex: RegExp,
  glob: Ignore | null,
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
    found,
  });
  return found;
}

interface Walk {
  regex: RegExp;
  glob: Ignore | null;
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
    if (run.found.more) return;
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
    // Never a blocking open: a FIFO swapped in after the lstat is skipped too.
    const handle = await openIfRegular(absolute);
    if (handle === null) return;
    try {
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
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
    const text = clipChars(line, SEARCH_LINE_CHARS);
    found.matches.push(`${relative}:${i + 1}:${text}`);
  }
}
