/**
 * Whether a `shell` command is a **simple command** that an approval rule may match, and its
 * words (docs/tools.md, "Approval rules"). Fail-closed: whatever this cannot read with certainty
 * is not simple, so it is asked about every time.
 *
 * The words come from shell-quote (quote removal, escapes, operators). shell-quote is a
 * tokenizer, not bash: it reads a newline as a blank, a backtick as a letter, an unterminated
 * quote as closed, and expands `$x` through a callback. So the text is first scanned, quote-aware,
 * for everything that would make bash read more than one plain command (the scan below), and
 * then any token that is not a plain word (an operator, a glob in the command's name, a comment)
 * refuses it too.
 */
import { parse } from "shell-quote";

export interface SimpleCommand {
  /** Leading `NAME=value` assignments, in order, as bash reads them (quotes removed). */
  env: string[];
  /** The program and its arguments (quotes removed); a glob argument is its pattern. */
  words: string[];
}

/** Longest command text considered at all; a longer one is never simple. */
const SIMPLE_COMMAND_CHARS = 8192;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/**
 * Words bash reads as its own grammar in a command's first position: a "command" starting with
 * one is a compound command or a keyword's, never a simple one.
 */
const RESERVED = new Set([
  "!",
  "[[",
  "]]",
  "{",
  "}",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/** The command's assignments and words, or null when it is not one simple command. */
export function simpleCommand(command: string): SimpleCommand | null {
  if (command.length > SIMPLE_COMMAND_CHARS || !plainText(command)) return null;
  let tokens: ReturnType<typeof parse>;
  try {
    // A `$` never reaches here (plainText refused it); should one, it is an object: refused.
    tokens = parse(command, () => ({ op: "expansion" }));
  } catch {
    return null;
  }
  const env: string[] = [];
  const words: string[] = [];
  for (const token of tokens) {
    if (typeof token === "string") {
      if (words.length === 0 && ASSIGNMENT.test(token)) env.push(token);
      else words.push(token);
    } else if ("op" in token && token.op === "glob" && words.length > 0) {
      words.push(token.pattern);
    } else {
      return null;
    }
  }
  const program = words[0];
  if (program === undefined || program === "" || RESERVED.has(program)) return null;
  return { env, words };
}

/**
 * The quote-aware scan: false for a control character or a Unicode blank anywhere (a newline
 * separates commands; a tab is a blank), a backtick or `$` outside single quotes (substitution and expansion), a quote left
 * open, or a trailing backslash (a continuation).
 */
function plainText(command: string): boolean {
  // Anywhere, even quoted or escaped: a newline in quotes is legal, but never needed by a rule.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(command)) return false;
  // Blanks other than space and tab: bash reads them as letters, shell-quote as separators.
  if (/[\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/.test(command))
    return false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      continue;
    }
    if (c === "`" || c === "$") return false;
    if (c === "\\") {
      if (i + 1 >= command.length) return false;
      i += 1;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  return quote === null;
}
