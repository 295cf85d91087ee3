/**
 * The stdin fields of Claude Code's hooks that differ from ours (docs/hooks.md, "What a hook
 * reads"): a tool's input carries Claude Code's names beside ours (`file_path`, absolute, beside
 * `path`; `old_string`/`new_string` beside `old_text`/`new_text`), so that a script written for
 * Claude Code (`jq -r .tool_input.file_path`) reads what it expects.
 */
import { isAbsolute, resolve } from "node:path";
import type { Permissions } from "../../protocol/schemas/turns.js";

export function claudeToolInput(workspace: string, input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const fields = input as Record<string, unknown>;
  const aliases: Record<string, unknown> = {};
  if (typeof fields.path === "string")
    aliases.file_path = isAbsolute(fields.path) ? fields.path : resolve(workspace, fields.path);
  if (typeof fields.old_text === "string") aliases.old_string = fields.old_text;
  if (typeof fields.new_text === "string") aliases.new_string = fields.new_text;
  return { ...fields, ...aliases };
}

/** `tool_response`: what the tool returned, with Claude Code's `filePath` for a file's tool. */
export function claudeToolResponse(
  workspace: string,
  input: unknown,
  response: { output: string; status: string; exit_code: number | null },
): Record<string, unknown> {
  const withPath = claudeToolInput(workspace, input) as { file_path?: unknown } | null;
  const filePath = typeof withPath?.file_path === "string" ? withPath.file_path : undefined;
  return {
    ...response,
    success: response.status === "completed",
    ...(filePath !== undefined ? { filePath } : {}),
  };
}

/** Claude Code's `permission_mode` for our level (`permissions` says ours exactly). */
export function permissionMode(permissions: Permissions): string {
  switch (permissions) {
    case "read_only":
      return "plan";
    case "accept_edits":
      return "acceptEdits";
    case "full_access":
      return "bypassPermissions";
    default:
      return "default";
  }
}
