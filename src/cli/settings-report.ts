import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { getLocation } from "jsonc-parser";
import type { SettingsFileCheck } from "../client/index.js";

/**
 * How an invalid settings file is shown: the file, the line and column with a caret under the
 * spot, the offending key, and the reason. The child reports only rule names and positions (no
 * content); the CLI reads the file itself, bounded, only to show the user that spot.
 */

const RULES: Record<string, string> = {
  trailing_comma: "a trailing comma (JSON allows none after the last item)",
  invalid_comment_token: "a comment (JSON has no comments)",
  property_name_expected: "a property name in double quotes was expected",
  value_expected: "a value was expected",
  colon_expected: "a colon was expected",
  comma_expected: "a comma was expected",
  close_brace_expected: "a closing } was expected",
  close_bracket_expected: "a closing ] was expected",
  end_of_file_expected: "nothing may follow the closing }",
  invalid_symbol: "not JSON here (strings take double quotes)",
  invalid_number_format: "not a valid number",
  unexpected_end_of_string: "a string without its closing quote",
  invalid_unicode: "an invalid \\u escape",
  invalid_escape_character: "an invalid escape character",
  invalid_character: "a control character inside a string",
  empty_file: "the file is empty (an empty object {} is the least it can be)",
  unknown_key: "an unknown key",
  wrong_type: "a value of the wrong type",
  invalid_value: "a value that is not allowed here",
  invalid_name: "a name that is not allowed (letters, digits, . _ -; 256 at most)",
  too_many: "too many entries",
  too_many_mcp_servers: "more than 32 MCP servers",
  too_many_providers: "more than 32 providers (the 3 built-ins included)",
  built_in_type: "a built-in provider keeps its own type",
  token_url_not_allowed: "only codex has a token_url",
  custom_provider_shape: 'a custom provider needs "type": "openai-compatible" and a "base_url"',
  unknown_provider: "an enabled model of a provider that is not configured",
};

const REASONS: Record<string, string> = {
  encoding: "not valid UTF-8",
  too_large: "larger than 1 MiB",
  not_regular: "not a regular file (a symlink, a folder or a FIFO)",
  unreadable: "it cannot be read (check its permissions)",
};

/** The lines that show one invalid file; `path` is where the documented rule puts it. */
export function describeInvalid(check: SettingsFileCheck, path: string): string[] {
  const what = check.file === "global" ? "global settings" : "project settings";
  if (check.reason && REASONS[check.reason])
    return [`${path} (${what}): ${REASONS[check.reason]}.`];
  let reason = (check.rule && RULES[check.rule]) || `invalid (${check.reason ?? "unknown"})`;
  if (check.line === null || check.column === null) return [`${path} (${what}): ${reason}.`];
  const text = readBounded(path);
  const where = `${path}:${check.line}:${check.column}`;
  if (text === null) return [`${where} (${what}): ${reason}.`];
  if (check.rule === "invalid_name" && isMcpServerName(text, check)) reason = MCP_NAME_RULE;
  const detail = keyDetail(text, check);
  return [`${where} (${what}): ${reason}${detail}.`, ...excerpt(text, check.line, check.column)];
}

/** docs/mcp.md, "Configuration": the rule a key of `mcp_servers` breaks. */
export const MCP_NAME_RULE =
  "an MCP server name that is not allowed (1 to 24 of A-Z a-z 0-9 _ -, starting with a letter or digit, not ending in _, never containing __: the model sees mcp__<server>__<tool>)";

/** Whether the spot is a key of `mcp_servers` (a server's name), not a provider's. */
function isMcpServerName(text: string, check: SettingsFileCheck): boolean {
  const location = getLocation(text, offsetOf(text, check.line ?? 1, check.column ?? 1) + 1);
  return location.path.length === 2 && location.path[0] === "mcp_servers";
}

/** The key (for an unknown key) or where in the document the spot is (for a schema fault). */
function keyDetail(text: string, check: SettingsFileCheck): string {
  if (check.reason !== "schema") return "";
  const offset = offsetOf(text, check.line ?? 1, check.column ?? 1);
  const key = /^"((?:[^"\\]|\\.){0,256})"/.exec(text.slice(offset))?.[1];
  if ((check.rule === "unknown_key" || check.rule === "invalid_name") && key !== undefined)
    return ` "${key}"`;
  const path = getLocation(text, offset + 1).path.join(".");
  return path ? ` (at ${path})` : "";
}

/** The line before and the line itself, numbered, with a caret under the column. */
function excerpt(text: string, line: number, column: number): string[] {
  const lines = text.split("\n");
  const width = String(line).length;
  const out: string[] = [];
  for (let n = Math.max(1, line - 1); n <= line; n += 1) {
    const content = clip(lines[n - 1] ?? "", column, n === line);
    out.push(`  ${String(n).padStart(width)} | ${content.text}`);
    if (n === line) out.push(`  ${" ".repeat(width)} | ${" ".repeat(content.caret)}^`);
  }
  return out;
}

/** Long lines are cut around the column so the caret stays on screen. */
function clip(raw: string, column: number, atCaret: boolean): { text: string; caret: number } {
  const line = raw.replace(/\r$/, "").replace(/\t/g, " ");
  const start = atCaret && column > 80 ? column - 40 : 0;
  const text = line.slice(start, start + 120);
  return {
    text: `${start > 0 ? "…" : ""}${text}`,
    caret: column - 1 - start + (start > 0 ? 1 : 0),
  };
}

function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let n = 1; n < line; n += 1) {
    const next = text.indexOf("\n", offset);
    if (next === -1) break;
    offset = next + 1;
  }
  return offset + column - 1;
}

const MAX_BYTES = 1_048_576;

/** The file's text, or null when it is not a regular file or larger than settings may be. */
function readBounded(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_BYTES) return null;
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, stat.size, 0);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
