import type { SearchHit } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import type { Terminal } from "../terminal.js";
import { oneLine } from "../turn/plan-block.js";

/** Characters of a hit's title a row shows (the snippet, at most 200, shows whole). */
const TITLE_CHARS = 40;

/**
 * One search hit on one line: the session, its title, where the match is (the record's index,
 * as `mc-agent show` and session.history count them) and the snippet with the match in bold.
 * A history's text is never trusted with the terminal: newlines and tabs become spaces, any
 * other control character is shown (`\u{1b}`) as plan-block's `oneLine` shows it, runs of
 * spaces one.
 */
export function searchRow(term: Terminal, hit: SearchHit, query: string): string {
  const title =
    hit.title === null ? term.dim("(untitled)") : fitChars(flat(hit.title), TITLE_CHARS);
  return `${hit.id}  ${title}  ${term.dim(`#${hit.record_index}`)}  ${marked(term, flat(hit.snippet), query)}`;
}

/** Printable, one line, without runs of spaces. */
function flat(text: string): string {
  return oneLine(text).replace(/ {2,}/g, " ").trim();
}

/** The first case-insensitive occurrence of `query` in bold (when lower-casing keeps lengths). */
function marked(term: Terminal, text: string, query: string): string {
  const lowered = text.toLowerCase();
  const at = lowered.indexOf(query.toLowerCase());
  if (at < 0 || lowered.length !== text.length) return text;
  const end = at + query.length;
  return `${text.slice(0, at)}${term.bold(text.slice(at, end))}${text.slice(end)}`;
}
