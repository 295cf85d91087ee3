/**
 * Every command a `shell` text may run, for deny rules (docs/tools.md, "What a deny rule sees").
 * Unlike simple-command.ts (which refuses whatever it cannot read with certainty, so that allow
 * rules match only plain commands), this reads through: every part of a compound command (`;`,
 * `&&`, `||`, pipes, `&`, subshells, braces, `if`/`while` bodies, new lines), redirections,
 * leading env assignments, command and process substitutions (`$(...)`, backticks, `<(...)`),
 * `bash -c '...'` and the wrappers of command-wrappers.ts. Where it cannot tell which program
 * runs (a program word made by an expansion or a glob, a shell reading its commands from stdin,
 * a quote left open, nesting deeper than MAX_DEPTH), it says `unsure`, and the call asks.
 *
 * The words come from shell-quote; the scan below first takes out what shell-quote does not
 * model (substitutions, expansions, comments, new lines, line continuations), leaving a marker
 * word in place of each expansion.
 */
import { parse } from "shell-quote";
import { wrappedCommands } from "./command-wrappers.js";
import type { CommandReader, CommandScan } from "./scanned-command.js";

export type { CommandScan, ScannedCommand } from "./scanned-command.js";

/** Stands for an expansion's unknown text inside a word. */
const EXPANSION = "\u0000x\u0000";
const MAX_DEPTH = 8;
/** Longest text scanned; a longer one is unsure. */
const SCAN_CHARS = 65536;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const SEPARATORS = new Set([";", "&&", "||", "|", "|&", "&", ";;", ";&", ";;&", "(", ")"]);
const REDIRECTIONS = new Set([
  ">",
  ">>",
  "<",
  ">&",
  "<&",
  "&>",
  "&>>",
  ">|",
  "<>",
  "<<",
  "<<<",
  "<<-",
]);
/** Words that open or close a compound command: dropped at a command's start. */
const KEYWORDS = new Set([
  "!",
  "{",
  "}",
  "then",
  "else",
  "elif",
  "do",
  "if",
  "while",
  "until",
  "fi",
  "done",
  "esac",
]);
/** Words whose command is not a program run (`for x in ...`, a function header, `[[ ]]`). */
const NOT_A_RUN = new Set(["for", "select", "case", "function", "[[", "in"]);

export function scanCommands(text: string, depth = 0): CommandScan {
  const scan: CommandScan = { commands: [], unsure: false };
  if (depth > MAX_DEPTH || text.length > SCAN_CHARS) return { commands: [], unsure: true };
  const taken = takeExpansions(text);
  if (taken === null) return { commands: [], unsure: true };
  for (const inner of taken.inner) merge(scan, scanCommands(inner, depth + 1));
  let tokens: ReturnType<typeof parse>;
  try {
    tokens = parse(taken.text, () => {
      scan.unsure = true;
      return EXPANSION;
    });
  } catch {
    return { commands: [], unsure: true };
  }
  let words: string[] = [];
  const flush = () => {
    if (words.length > 0) merge(scan, commandsOfWords(words, depth));
    words = [];
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as ReturnType<typeof parse>[number];
    if (typeof token === "string") {
      const next = tokens[i + 1];
      // `2>/dev/null`: shell-quote splits off the descriptor as a word of its own.
      if (/^[0-9]+$/.test(token) && isRedirection(next)) continue;
      words.push(token);
    } else if ("op" in token && token.op === "glob") {
      words.push((token as { pattern: string }).pattern);
    } else if ("op" in token && SEPARATORS.has(token.op)) {
      flush();
    } else if (isRedirection(token)) {
      i += 1; // the target word: a file name, not a command
    } else {
      scan.unsure = true; // a comment or an operator we do not know
    }
  }
  flush();
  return scan;
}

function isRedirection(token: ReturnType<typeof parse>[number] | undefined): boolean {
  return typeof token === "object" && token !== null && "op" in token && REDIRECTIONS.has(token.op);
}

function merge(into: CommandScan, from: CommandScan): void {
  into.commands.push(...from.commands);
  into.unsure ||= from.unsure;
}

/** The commands of one simple command's words: itself, and what its wrappers run. */
function commandsOfWords(all: readonly string[], depth: number, env: string[] = []): CommandScan {
  let at = 0;
  while (at < all.length && KEYWORDS.has(all[at] as string)) at += 1;
  if (all[at] === "coproc") return commandsOfWords(all.slice(at + 1), depth, env);
  if (NOT_A_RUN.has(all[at] as string)) return { commands: [], unsure: false };
  const assignments = [...env];
  while (at < all.length && ASSIGNMENT.test(all[at] as string))
    assignments.push(all[at++] as string);
  const words = all.slice(at);
  const program = words[0];
  if (program === undefined) return { commands: [], unsure: false };
  // A program word an expansion, a glob or a brace expansion makes: which program runs is unknown.
  // (`[` alone is the test command, not a glob.)
  if (program.includes(EXPANSION) || (program !== "[" && /[*?[{]/.test(program)))
    return { commands: [], unsure: true };
  const scan: CommandScan = { commands: [{ env: assignments, words }], unsure: false };
  if (depth >= MAX_DEPTH) return { ...scan, unsure: true };
  merge(scan, wrappedCommands(words, assignments, depth + 1, READER));
  return scan;
}

const READER: CommandReader = { text: scanCommands, words: commandsOfWords };

/**
 * The text with each expansion replaced by EXPANSION and each new line by `;`, comments and
 * line continuations removed, and the bodies of command and process substitutions apart; null
 * when a quote or substitution is left open.
 */
function takeExpansions(text: string): { text: string; inner: string[] } | null {
  const inner: string[] = [];
  let out = "";
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (quote === "'") {
      out += c;
      if (c === "'") quote = null;
      continue;
    }
    if (c === "\\") {
      if (next === undefined) return null;
      if (next !== "\n") out += c + next;
      i += 1;
      continue;
    }
    if (
      (c === "$" && next === "(") ||
      (quote === null && (c === "<" || c === ">") && next === "(")
    ) {
      const close = closingParen(text, i + 2);
      if (close < 0) return null;
      inner.push(text.slice(i + 2, close));
      out += EXPANSION;
      i = close;
      continue;
    }
    if (c === "`") {
      const body = backquoted(text, i + 1);
      if (body === null) return null;
      inner.push(body.text);
      out += EXPANSION;
      i = body.end;
      continue;
    }
    if (c === "$" && next === "{") {
      const close = text.indexOf("}", i + 2);
      const body = close < 0 ? null : text.slice(i + 2, close);
      if (body === null || /[`$<>]/.test(body)) return null;
      out += EXPANSION;
      i = close;
      continue;
    }
    if (c === "$" && next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) {
      let end = i + 2;
      if (/[A-Za-z_]/.test(next))
        while (end < text.length && /[A-Za-z0-9_]/.test(text[end] as string)) end += 1;
      out += EXPANSION;
      i = end - 1;
      continue;
    }
    if (c === "$" && next === "'" && quote === null) {
      const close = ansiEnd(text, i + 2);
      if (close < 0) return null;
      out += EXPANSION;
      i = close;
      continue;
    }
    if (quote === null && c === "\n") {
      out += " ; ";
      continue;
    }
    if (quote === null && c === "#" && (i === 0 || /[\s;&|()<>]/.test(text[i - 1] as string))) {
      while (i + 1 < text.length && text[i + 1] !== "\n") i += 1;
      continue;
    }
    if (c === '"') quote = quote === '"' ? null : '"';
    else if (c === "'" && quote === null) quote = "'";
    out += c;
  }
  return quote === null ? { text: out, inner } : null;
}

/** The index of the `)` closing a `$(` or `<(` whose body starts at `from`, or -1. */
function closingParen(text: string, from: number): number {
  let depth = 1;
  let quote: "'" | '"' | null = null;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === "\\") {
      i += 1;
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "(") {
      depth += 1;
    } else if (c === ")") {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** A backquoted body from `from` (its escapes undone) and the closing backquote's index. */
function backquoted(text: string, from: number): { text: string; end: number } | null {
  let body = "";
  for (let i = from; i < text.length; i += 1) {
    const c = text[i] as string;
    if (c === "`") return { text: body, end: i };
    if (c === "\\" && /[`\\$]/.test(text[i + 1] ?? "")) {
      body += text[i + 1];
      i += 1;
    } else {
      body += c;
    }
  }
  return null;
}

/** The index of the `'` closing a `$'...'` whose body starts at `from`, or -1. */
function ansiEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === "'") return i;
  }
  return -1;
}
