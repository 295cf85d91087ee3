import { isRecordStub, type SessionEvent } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import type { ChatState } from "./chat-state.js";

/** Exchanges (a message and its reply) a resumed chat shows. */
const RECAP_EXCHANGES = 3;
const LINES_EACH = 4;
const CHARS_EACH = 400;

/**
 * Before a resumed chat's first prompt: its last few exchanges, each message cut to a few
 * lines, so the user sees where the conversation stood. The history is read page by page and
 * only the last messages are kept; a message too long for a history page comes as its stub, and
 * only the kept ones are then read whole (`session.record`).
 */
export async function showRecap(state: ChatState): Promise<void> {
  let kept: SessionEvent[] = [];
  for await (const page of state.client.history(state.sessionId))
    for (const event of page)
      if (spoken(event) || longMessage(event)) {
        kept.push(event);
        if (kept.length > RECAP_EXCHANGES * 2) kept.shift();
      }
  kept = await Promise.all(
    kept.map((e) => (isRecordStub(e) ? state.client.record(state.sessionId, e.index) : e)),
  );
  kept = kept.filter(spoken);
  const firstUser = kept.findIndex((e) => e.type === "user_message");
  const shown = firstUser < 0 ? kept : kept.slice(firstUser);
  if (shown.length === 0) return;
  const { term } = state;
  term.note(term.paintNote("── where this session stood ──", "2"));
  for (const event of shown) {
    const who = event.type === "user_message" ? "you" : "assistant";
    const body = cut(event.text as string);
    term.note(`${term.paintNote(`${who}:`, event.type === "user_message" ? "1" : "32")} ${body}`);
  }
  term.note(term.paintNote("──", "2"));
}

function spoken(event: SessionEvent): boolean {
  return (
    (event.type === "user_message" || event.type === "assistant_message") &&
    typeof event.text === "string" &&
    event.text.trim() !== ""
  );
}

function longMessage(event: SessionEvent): boolean {
  return (
    isRecordStub(event) && (event.type === "user_message" || event.type === "assistant_message")
  );
}

function cut(text: string): string {
  return cutLines(text, CHARS_EACH, LINES_EACH, "  ");
}

/**
 * A text cut to `chars` characters and at most `lines` lines (then how many more), its later
 * lines indented by `indent` under the first (the recap's and `/agents`'s messages).
 */
export function cutLines(text: string, chars: number, lines: number, indent: string): string {
  const all = fitChars(text.trim(), chars).split("\n");
  const head = all.slice(0, lines);
  if (all.length > lines) head.push(`… (${all.length - lines} more lines)`);
  return head.join(`\n${indent}`);
}
