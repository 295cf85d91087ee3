import type { AgentClient, SessionEntry } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import { UsageError } from "../args.js";
import { shortTime } from "../commands/format.js";
import { ActionableError } from "../failure.js";
import { listSessions } from "../sessions/session-list.js";
import { pickByPrefix } from "../sessions/session-ref.js";
import { workspaceHint } from "../sessions/workspace-hint.js";
import { type Terminal, table } from "../terminal.js";
import type { LineReader } from "../turn/reader-types.js";

/** Rows the picker offers. */
const PICKER_ROWS = 20;

/**
 * resume's choice of session: the newest with `last`, else a numbered list of this folder's
 * sessions (newest first, title and local time) to pick from by number or by the start of an
 * ID. Quitting the picker (Enter, Ctrl-C, Ctrl-D) is an interrupt.
 */
export function sessionPicker(
  term: Terminal,
  reader: LineReader,
  last: boolean,
): (client: AgentClient) => Promise<string> {
  return async (client) => {
    const { sessions } = await listSessions(term, client);
    if (sessions.length === 0) throw await nothingToResume(term);
    if (last) return (sessions[0] as SessionEntry).id;
    if (!reader.interactive)
      throw new UsageError("no terminal to pick a session on: pass --last or a session ID");
    const shown = sessions.slice(0, PICKER_ROWS);
    const rows = shown.map((s, i) => [
      String(i + 1).padStart(2),
      s.id,
      shortTime(s.updated_at),
      fitChars(s.title ?? "(untitled)", 50),
    ]);
    for (const line of table(rows)) term.note(line);
    if (sessions.length > shown.length)
      term.note(
        `… ${sessions.length - shown.length} older ("mc-agent sessions --all"; resume takes any ID)`,
      );
    for (;;) {
      const answer = await reader.ask("Resume which? (number or start of an ID; Enter quits): ");
      if (answer.kind !== "line" || answer.text.trim() === "") throw new PickerQuit();
      const text = answer.text.trim();
      const byNumber = /^\d+$/.test(text) ? shown[Number(text) - 1] : undefined;
      if (byNumber) return byNumber.id;
      try {
        const id = pickByPrefix(sessions, text);
        if (sessions.some((s) => s.id === id)) return id;
        term.note(`No session here starts with "${fitChars(text, 40)}".`);
      } catch (error) {
        if (!(error instanceof ActionableError)) throw error;
        term.note(`${error.message}. ${error.advice}`);
      }
    }
  };
}

/** Enter or Ctrl-C at the picker: nothing was resumed, on purpose. */
export class PickerQuit extends Error {
  override readonly name = "PickerQuit";
}

async function nothingToResume(term: Terminal): Promise<ActionableError> {
  const hint = await workspaceHint(term, process.cwd());
  return new ActionableError(
    "session_missing",
    "No saved session for this folder to resume",
    hint ?? 'Start one with "mc-agent chat".',
  );
}
