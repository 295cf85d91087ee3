import type { Terminal } from "../terminal.js";
import { visibleWidth } from "../turn/live-area.js";

/** The hint under the output while a turn runs (Codex CLI's keys: Enter steers, Tab queues). */
const LIVE_HINT = "Enter steers this turn · Tab queues for after it · Ctrl-C interrupts";
const RECALL_HINT = "Alt-Up takes the last queued message back to edit (it never starts)";

/**
 * The status lines above the composer while a turn runs: each queued message (its first line,
 * cut to the width), oldest first, then the keys.
 */
export function queuedLines(term: Terminal, queued: readonly string[], width: number): string[] {
  const lines = queued.map((text, i) =>
    term.paintNote(fit(`queued ${i + 1}: ${oneLine(text)}`, width), "36"),
  );
  const hints = queued.length > 0 ? [LIVE_HINT, RECALL_HINT] : [LIVE_HINT];
  return [...lines, ...hints.map((hint) => term.paintNote(fit(hint, width), "2"))];
}

/** A message on one line: its first line, "…" when more follow. */
export function oneLine(text: string): string {
  const lines = text.split("\n");
  return lines.length > 1 ? `${lines[0]} …` : text;
}

/** Cut to one row of `width` columns (one column spare, so the terminal never wraps it). */
function fit(text: string, width: number): string {
  const room = width - 1;
  if (visibleWidth(text) <= room) return text;
  return `${[...text].slice(0, room - 1).join("")}…`;
}
