/**
 * write_file: creates or replaces a text file atomically. The diff against the current content
 * is computed at planning, so the approval shows exactly what execute writes.
 */
import { z } from "zod";
import { utf8Length } from "../../protocol/raw-json.js";
import { readForEdit, writeEdit } from "./host-files.js";
import { EDIT_FILE_BYTES } from "./text-file.js";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { diffStat, unifiedDiff } from "./unified-diff.js";
import { resolveForWrite } from "./workspace-path.js";

const WriteFileInput = z.strictObject({
  path: z.string().describe("File path, relative to the workspace; missing folders are created."),
  content: z.string().describe("The file's whole new content."),
});

export const writeFileTool: Tool<z.infer<typeof WriteFileInput>> = {
  name: "write_file",
  kind: "edit",
  description:
    "Create a text file or replace its whole content (atomically). Prefer edit_file to change " +
    `part of a file. At most ${EDIT_FILE_BYTES} bytes; nothing under .git/ or .mc/.`,
  input: WriteFileInput,
  async plan(raw, ctx) {
    const input = parseToolInput(WriteFileInput, raw);
    if (utf8Length(input.content) > EDIT_FILE_BYTES)
      throw new ToolError(`content is larger than ${EDIT_FILE_BYTES} bytes`);
    const target = await resolveForWrite(ctx.workspace, input.path);
    const before = target.exists ? await readForEdit(ctx, target) : null;
    const diff = unifiedDiff(target.relative, before, input.content);
    const verb = target.exists ? "Write" : "Create";
    return {
      title: `${verb} ${target.shown}`,
      approval: { kind: "edit", command: null, path: target.relative, diff },
      async execute() {
        await writeEdit(ctx, input.path, target, before, input.content);
        const lines = countLines(input.content);
        return {
          status: "completed",
          output: `${target.exists ? "Replaced" : "Created"} ${target.shown} (${lines} lines, ${diffStat(diff)})`,
          summary: `${target.exists ? "Wrote" : "Created"} ${lines} ${lines === 1 ? "line" : "lines"}`,
          exit_code: null,
          diff,
        };
      },
    };
  },
};

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
