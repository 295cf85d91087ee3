/**
 * list_dir: a folder's entries with their kinds, one per line (`dir  src`), sorted by name, at
 * most LIST_DIR_ENTRIES. The folder is streamed, so a huge one costs no more memory than the
 * bound: the entries shown are the first LIST_DIR_ENTRIES read, and the rest are counted.
 * Symlinks are listed as such, never followed (where one points is not shown).
 */
import type { Dirent } from "node:fs";
import { opendir } from "node:fs/promises";
import { z } from "zod";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { fsToolError, resolveExisting, type WorkspacePath } from "./workspace-path.js";

const LIST_DIR_ENTRIES = 1000;

const ListDirInput = z.strictObject({
  path: z.string().describe('Folder path, relative to the workspace ("." for the workspace).'),
});

export const listDirTool: Tool<z.infer<typeof ListDirInput>> = {
  name: "list_dir",
  kind: "read",
  description:
    'List a folder of the workspace: one entry per line, "<kind> <name>" with kind dir, file, ' +
    `symlink or other, sorted by name, at most ${LIST_DIR_ENTRIES} entries.`,
  input: ListDirInput,
  async plan(raw, ctx) {
    const input = parseToolInput(ListDirInput, raw);
    const target = await resolveExisting(ctx.workspace, input.path);
    return {
      title: `List ${target.shown}`,
      approval: null,
      async execute() {
        const { entries, more } = await readEntries(target);
        return {
          status: "completed",
          output: render(entries, more),
          summary: `${entries.length + more} ${entries.length + more === 1 ? "entry" : "entries"}`,
          exit_code: null,
          diff: null,
        };
      },
    };
  },
};

async function readEntries(target: WorkspacePath): Promise<{ entries: string[]; more: number }> {
  const entries: string[] = [];
  let more = 0;
  try {
    const dir = await opendir(target.absolute);
    for await (const entry of dir) {
      if (entries.length < LIST_DIR_ENTRIES)
        entries.push(`${kindOf(entry)} ${shownName(entry.name)}`);
      else more++;
    }
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOTDIR")
      throw new ToolError(`${target.shown} is not a directory (use read_file for files)`);
    throw fsToolError(error, target.shown);
  }
  // Sorted by name: the kind word is a fixed prefix, so compare what follows it.
  entries.sort((a, b) => compare(a.slice(a.indexOf(" ") + 1), b.slice(b.indexOf(" ") + 1)));
  return { entries, more };
}

/** A name with a newline or another control character is quoted, so one line stays one entry. */
const shownName = (name: string) => (/\p{Cc}/u.test(name) ? JSON.stringify(name) : name);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function kindOf(entry: Dirent): string {
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  if (entry.isSymbolicLink()) return "symlink";
  return "other";
}

function render(entries: string[], more: number): string {
  if (entries.length === 0) return "(empty folder)";
  const note =
    more > 0 ? `\n[${more} more entries not shown (the ${LIST_DIR_ENTRIES}-entry limit)]` : "";
  return `${entries.join("\n")}${note}`;
}
