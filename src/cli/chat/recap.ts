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
  const lines = fitChars(text.trim(), CHARS_EACH).split("\n");
  const head = lines.slice(0, LINES_EACH);
  if (lines.length > LINES_EACH) head.push(`… (${lines.length - LINES_EACH} more lines)`);
  return head.join("\n  ");
}
