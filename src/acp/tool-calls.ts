import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { parsePatch } from "diff";
import { fitChars } from "../protocol/text-cut.js";

/**
 * How one of our tools looks as an ACP tool call: its kind, the locations it touches (absolute,
 * as ACP wants), and a diff's content as `oldText`/`newText` (docs/acp.md).
 */
const KINDS: Record<string, ToolKind> = {
  read_file: "read",
  list_dir: "read",
  search: "search",
  write_file: "edit",
  edit_file: "edit",
  shell: "execute",
  update_plan: "think",
  // A subagent thinks for the parent (as the Claude ACP agent shows its Task tool).
  agent: "think",
};

export function toolKind(tool: string): ToolKind {
  return KINDS[tool] ?? "other";
}

/** The file or folder a call names (read_file, list_dir, search, write_file, edit_file). */
export function toolLocations(cwd: string, input: unknown): ToolCallLocation[] {
  if (typeof input !== "object" || input === null) return [];
  const { path, offset } = input as { path?: unknown; offset?: unknown };
  if (typeof path !== "string" || path === "") return [];
  const location: ToolCallLocation = { path: isAbsolute(path) ? path : resolve(cwd, path) };
  if (typeof offset === "number" && Number.isInteger(offset) && offset > 0) location.line = offset;
  return [location];
}

/**
 * A unified diff (what our `tool_done` and `approval_requested` carry) as ACP diff content: one
 * entry per hunk, `oldText` the hunk's old lines and `newText` its new lines (`oldText` null for
 * a created file). The whole files are not in the diff; the hunks are what changed, with context.
 * A diff that does not parse gives nothing (it is shown as text instead).
 */
export function diffContent(cwd: string, unified: string): ToolCallContent[] {
  let patches: ReturnType<typeof parsePatch>;
  try {
    patches = parsePatch(unified);
  } catch {
    return [];
  }
  const content: ToolCallContent[] = [];
  for (const patch of patches) {
    const name = stripPrefix(patch.newFileName) ?? stripPrefix(patch.oldFileName);
    if (!name) continue;
    const path = isAbsolute(name) ? name : resolve(cwd, name);
    const created = patch.oldFileName === "/dev/null";
    for (const hunk of patch.hunks) {
      const oldLines: string[] = [];
      const newLines: string[] = [];
      for (const line of hunk.lines) {
        const mark = line[0];
        const text = line.slice(1);
        if (mark === " " || mark === "-") oldLines.push(text);
        if (mark === " " || mark === "+") newLines.push(text);
      }
      content.push({
        type: "diff",
        path,
        oldText: created ? null : joinLines(oldLines),
        newText: joinLines(newLines),
      });
    }
  }
  return content;
}

/** Text content of a tool call (a summary, command output). */
export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function stripPrefix(name: string | undefined): string | null {
  if (!name || name === "/dev/null") return null;
  return name.replace(/^[ab]\//, "");
}

function joinLines(lines: string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

const VERBS: Record<string, string> = {
  read_file: "Read",
  list_dir: "List",
  search: "Search",
  write_file: "Write",
  edit_file: "Edit",
  shell: "Run",
  update_plan: "Update the plan",
};
const TITLE_CHARS = 80;

/**
 * A title for a tool call replayed from history (its record keeps the input, not the title the
 * turn showed): the verb and what it names, cut to one short line.
 */
export function replayTitle(tool: string, input: unknown): string {
  const verb = VERBS[tool] ?? `Use ${tool}`;
  const fields =
    typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  // A subagent is titled with its description, live and on load (subagent-view.ts).
  if (tool === "agent" && typeof fields.description === "string")
    return agentTitle(fields.description);
  const object = [fields.command, fields.pattern, fields.path].find((v) => typeof v === "string");
  if (typeof object !== "string") return verb;
  return `${verb} ${cutLine(object.split("\n", 1)[0] ?? "")}`;
}

/** The most characters of a subagent's title (the `agent` tool's bound on its description). */
const AGENT_TITLE_CHARS = 120;

/** A subagent's title: its description on one line, cut to the tool's bound. */
export function agentTitle(description: string): string {
  return fitChars(description.replace(/\s+/g, " ").trim(), AGENT_TITLE_CHARS) || "Agent";
}

function cutLine(line: string): string {
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}
