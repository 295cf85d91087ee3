/**
 * The rule an approval offers, and whether a rule matches a call (docs/tools.md, "Approval
 * rules"). A `shell` rule is the program plus its subcommand words, up to the first word that is
 * an option or a path argument, and covers every simple command that starts with those words
 * and whose further options the option table lists (rule-arguments.ts); when that would not
 * cover the command itself, or for a program that runs other programs (a shell, `env`, `sudo`,
 * an interpreter, ...), it is the whole command, matched exactly. An edit rule is a path glob,
 * or the whole workspace.
 */
import { utf8Length } from "../../protocol/paging.js";
import { RULE_TEXT_BYTES, type RuleOffer } from "../../protocol/schemas/rules.js";
import { hasHidden } from "../../protocol/visible-text.js";
import type { ApprovalRequest } from "../tools/tool.js";
import { argumentsCovered, programName, SUBCOMMAND_WORD } from "./rule-arguments.js";
import { type SimpleCommand, simpleCommand } from "./simple-command.js";

/**
 * Programs whose arguments are another command or a program text: a prefix of them (`bash`,
 * `sudo`) would allow anything, so their rules are exact. Compared by the program's last path
 * segment (`/usr/bin/sudo` is `sudo`).
 */
const EXACT_PROGRAMS = new Set([
  ".",
  "awk",
  "bash",
  "builtin",
  "bun",
  "busybox",
  "chroot",
  "command",
  "dash",
  "deno",
  "doas",
  "env",
  "eval",
  "exec",
  "find",
  "fish",
  "flock",
  "gawk",
  "ionice",
  "ksh",
  "ltrace",
  "nice",
  "node",
  "nohup",
  "nsenter",
  "parallel",
  "perl",
  "php",
  "pkexec",
  "python",
  "python2",
  "python3",
  "ruby",
  "script",
  "sed",
  "setsid",
  "sh",
  "source",
  "ssh",
  "stdbuf",
  "strace",
  "su",
  "sudo",
  "taskset",
  "time",
  "timeout",
  "unshare",
  "watch",
  "xargs",
  "zsh",
]);

/** What a call is, for rules: a `shell` command (simple or not) or an edit of a path. */
export type RuleSubject =
  | {
      tool: "shell";
      /** The command when it is one simple command (what allow rules match), else null. */
      command: SimpleCommand | null;
      /** The whole text (what deny rules read through), or null. */
      text: string | null;
    }
  | { tool: "edit"; path: string | null }
  | { tool: "mcp"; name: string };

export function subjectOf(request: ApprovalRequest): RuleSubject {
  if (request.mcp !== undefined) return { tool: "mcp", name: request.mcp };
  if (request.kind === "edit") return { tool: "edit", path: request.path };
  return {
    tool: "shell",
    command: request.command === null ? null : simpleCommand(request.command),
    text: request.command,
  };
}

/** The rule allow_session and the `_always` decisions would keep, or null when none can. */
export function offerFor(subject: RuleSubject): RuleOffer | null {
  if (subject.tool === "edit") return editRule(null);
  if (subject.tool === "mcp") return mcpRule(subject.name);
  if (subject.command === null) return null;
  const { env, words } = subject.command;
  if (EXACT_PROGRAMS.has(programName(words[0] as string))) return shellRule("exact", env, words);
  // Never broader than the command the user saw: when the prefix would not cover this very
  // command's options (`git -C . status`, `git diff --output=x`), the rule is the exact command.
  const prefix = prefixWords(words);
  if (argumentsCovered(words, prefix.length)) return shellRule("prefix", env, prefix);
  return shellRule("exact", env, words);
}

/** A shell rule of these words, or null when its text is over RULE_TEXT_BYTES. */
export function shellRule(
  match: "prefix" | "exact",
  env: string[],
  words: string[],
): RuleOffer | null {
  const text = [...env.map(assignmentText), ...words.map(wordText)].join(" ");
  if (utf8Length(text) > RULE_TEXT_BYTES) return null;
  return { tool: "shell", match, env: [...env], words: [...words], text };
}

/** A rule for every call of one MCP tool (docs/mcp.md, "Approvals"). */
export function mcpRule(name: string): RuleOffer {
  return { tool: "mcp", name, text: `the MCP tool ${name}` };
}

export function editRule(pathGlob: string | null): RuleOffer {
  return {
    tool: "edit",
    path_glob: pathGlob,
    text: pathGlob === null ? "every edit in the workspace" : `edits of ${pathGlob}`,
  };
}

/** The program, then its subcommand words up to the first that is not one. */
function prefixWords(words: string[]): string[] {
  const kept = [words[0] as string];
  for (const word of words.slice(1)) {
    if (!SUBCOMMAND_WORD.test(word)) break;
    kept.push(word);
  }
  return kept;
}

/**
 * A word as bash would read it back: bare when plain, else single-quoted; with an invisible or
 * reordering character (visible-text.ts), ANSI-C quoted with that character as `\uXXXX`, so the
 * text shows it and bash still reads the same word.
 */
function wordText(word: string): string {
  if (hasHidden(word)) return ansiC(word);
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function ansiC(word: string): string {
  let out = "";
  for (const c of word) {
    const code = c.codePointAt(0) as number;
    if (c === "\\" || c === "'") out += `\\${c}`;
    else if (hasHidden(c)) out += code > 0xffff ? `\\U${hex(code, 8)}` : `\\u${hex(code, 4)}`;
    else out += c;
  }
  return `$'${out}'`;
}

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, "0");
}

/** `NAME=value` with the value quoted: a quoted name would not be an assignment. */
function assignmentText(assignment: string): string {
  const at = assignment.indexOf("=");
  const value = assignment.slice(at + 1);
  return `${assignment.slice(0, at + 1)}${value === "" ? "" : wordText(value)}`;
}

/**
 * Whether an allow rule spares `subject`'s question: it matches, and a prefix rule covers the
 * options and operands past its words (rule-arguments.ts).
 */
export function allowCovers(rule: RuleOffer, subject: RuleSubject): boolean {
  if (!ruleMatches(rule, subject)) return false;
  if (rule.tool !== "shell" || rule.match === "exact" || subject.tool !== "shell") return true;
  return argumentsCovered(subject.command?.words ?? [], rule.words.length);
}

/**
 * Whether `rule`'s words match `subject` (a prefix rule: the command starts with them). A
 * command that is not simple matches no rule.
 */
export function ruleMatches(rule: RuleOffer, subject: RuleSubject): boolean {
  if (rule.tool === "mcp") return subject.tool === "mcp" && subject.name === rule.name;
  if (rule.tool === "edit") {
    if (subject.tool !== "edit") return false;
    if (rule.path_glob === null) return true;
    return subject.path !== null && globMatches(rule.path_glob, subject.path);
  }
  if (subject.tool !== "shell" || subject.command === null) return false;
  const { env, words } = subject.command;
  if (!sameWords(rule.env, env)) return false;
  if (rule.match === "exact") return sameWords(rule.words, words);
  return rule.words.length <= words.length && rule.words.every((w, i) => words[i] === w);
}

function sameWords(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((word, i) => b[i] === word);
}

/**
 * A path glob against a workspace-relative path (`/`-separated): `*` is any characters but `/`,
 * `?` one character but `/`, a `**` segment any number of segments (none included). Everything
 * else is literal; case-sensitive.
 */
export function globMatches(glob: string, path: string): boolean {
  return globRegExp(glob).test(path);
}

function globRegExp(glob: string): RegExp {
  const parts = glob.split("/");
  let source = "";
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (part === "**") {
      source += last ? ".*" : "(?:[^/]+/)*";
      return;
    }
    source += part
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]");
    if (!last) source += "/";
  });
  return new RegExp(`^${source}$`, "u");
}
