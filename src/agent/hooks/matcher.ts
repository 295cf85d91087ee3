/**
 * Which tool calls a hook's `matcher` takes (docs/hooks.md, "Matchers"): Claude Code's rules
 * over our tool names and Claude Code's names for the same tools. Empty, absent or `*` takes
 * every call; a plain list of names (`Bash`, `Edit|Write`) takes exactly those names; anything
 * else is a regular expression, tested (unanchored, as in Claude Code) against each name.
 */

/** Claude Code's tool names for ours: a matcher may name either. */
export const CLAUDE_ALIASES: Readonly<Record<string, readonly string[]>> = {
  shell: ["Bash"],
  write_file: ["Write"],
  edit_file: ["Edit"],
  read_file: ["Read"],
  search: ["Grep"],
  list_dir: ["Glob", "LS"],
};

/** Claude Code's tools we have none of: a matcher naming them matches nothing (a warning). */
export const CLAUDE_ONLY_TOOLS = [
  "MultiEdit",
  "Task",
  "WebFetch",
  "WebSearch",
  "NotebookEdit",
  "NotebookRead",
  "TodoWrite",
  "ExitPlanMode",
  "BashOutput",
  "KillShell",
  "SlashCommand",
] as const;

const PLAIN_NAMES = /^[A-Za-z0-9_|]+$/;

/** The names a call of `tool` answers to: ours, then Claude Code's. */
export function namesOf(tool: string): string[] {
  return [tool, ...(CLAUDE_ALIASES[tool] ?? [])];
}

/** Whether `matcher` takes the subject `name` (a tool, or another event's own subject). */
export function matches(matcher: string | undefined, name: string, aliases = namesOf(name)) {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (PLAIN_NAMES.test(matcher)) {
    const listed = matcher.split("|");
    return aliases.some((candidate) => listed.includes(candidate));
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(matcher);
  } catch {
    return false; // the settings schema refuses such a file; never reached from a valid one
  }
  return aliases.some((candidate) => pattern.test(candidate));
}

/** Claude Code's tool names a matcher lists that we have no tool for (each a warning). */
export function unmatchedClaudeNames(matcher: string | undefined): string[] {
  if (matcher === undefined) return [];
  const words = matcher.match(/[A-Za-z]+/g) ?? [];
  const only: readonly string[] = CLAUDE_ONLY_TOOLS;
  return [...new Set(words.filter((word) => only.includes(word)))];
}
