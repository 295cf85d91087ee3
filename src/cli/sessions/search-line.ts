import type { SearchHit } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import type { Terminal } from "../terminal.js";

/** Characters of a hit's title a row shows (the snippet, at most 200, shows whole). */
const TITLE_CHARS = 40;

/**
 * One search hit on one line: the session, its title, where the match is (the record's index,
 * as `mc-agent show` and session.history count them) and the snippet with the match in bold.
 * A history's text is never trusted with the terminal: control characters (escape sequences,
 * newlines, tabs) become spaces, runs of spaces one.
 */
export function searchRow(term: Terminal, hit: SearchHit, query: string): string {
  const title =
    hit.title === null ? term.dim("(untitled)") : fitChars(flat(hit.title), TITLE_CHARS);
  return `${hit.id}  ${title}  ${term.dim(`#${hit.record_index}`)}  ${marked(term, flat(hit.snippet), query)}`;
}

/** C0 and C1 controls and the line separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** Printable, one line. */
export function flat(text: string): string {
  return text.replace(UNPRINTABLE, " ").replace(/ {2,}/g, " ").trim();
}

/** The first case-insensitive occurrence of `query` in bold (when lower-casing keeps lengths). */
function marked(term: Terminal, text: string, query: string): string {
  const lowered = text.toLowerCase();
  const at = lowered.indexOf(query.toLowerCase());
  if (at < 0 || lowered.length !== text.length) return text;
  const end = at + query.length;
  return `${text.slice(0, at)}${term.bold(text.slice(at, end))}${text.slice(end)}`;
}
