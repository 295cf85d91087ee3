/**
 * edit_file: an exact text replacement in one file. `old_text` must occur exactly once (or at
 * least once with `replace_all`); the new content and its diff are computed at planning, so
 * the approval shows exactly what execute writes.
 */
import { z } from "zod";
import { readForEdit, writeEdit } from "./host-files.js";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { diffStat, unifiedDiff } from "./unified-diff.js";
import { resolveForWrite } from "./workspace-path.js";

const EditFileInput = z.strictObject({
  path: z.string().describe("File path, relative to the workspace."),
  old_text: z.string().min(1).describe("Exact text to replace (whitespace included)."),
  new_text: z.string().describe("Text to put in its place."),
  replace_all: z.boolean().optional().describe("Replace every occurrence (default false)."),
});

export const editFileTool: Tool<z.infer<typeof EditFileInput>> = {
  name: "edit_file",
  kind: "edit",
  description:
    "Replace exact text in a file. old_text must occur exactly once unless replace_all is " +
    "true; include enough surrounding lines to make it unique.",
  input: EditFileInput,
  async plan(raw, ctx) {
    const input = parseToolInput(EditFileInput, raw);
    if (input.old_text === input.new_text) throw new ToolError("old_text and new_text are equal");
    const target = await resolveForWrite(ctx.workspace, input.path);
    if (!target.exists)
      throw new ToolError(`${target.shown}: no such file (use write_file to create one)`);
    // The editor's text when it offers reads (an unsaved buffer), else the file's (host-files.ts).
    const before = await readForEdit(ctx, target);
    const count = occurrences(before, input.old_text);
    if (count === 0) throw new ToolError(`old_text was not found in ${target.shown}`);
    if (count > 1 && !input.replace_all) {
      throw new ToolError(
        `old_text occurs ${count} times in ${target.shown}; add context to make it unique, or set replace_all`,
      );
    }
    // split/join, not String.replace: a `$&` or `$1` in new_text must stay literal.
    const after = before.split(input.old_text).join(input.new_text);
    const diff = unifiedDiff(target.relative, before, after);
    return {
      title: `Edit ${target.shown}`,
      approval: { kind: "edit", command: null, path: target.relative, diff },
      async execute() {
        await writeEdit(ctx, input.path, target, before, after);
        const replaced = `${count} ${count === 1 ? "replacement" : "replacements"}`;
        return {
          status: "completed",
          output: `Edited ${target.shown}: ${replaced} (${diffStat(diff)})`,
          summary: `Edited (${diffStat(diff)})`,
          exit_code: null,
          diff,
        };
      },
    };
  },
};

/** Non-overlapping occurrences, as split counts them. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    count++;
  return count;
}
