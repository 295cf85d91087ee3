import type { AgentClient, Permissions } from "../../client/index.js";
import type { TurnAttachment } from "../../protocol/schemas/attachments.js";
import type { Terminal } from "../terminal.js";
import type { LineReader } from "../turn/reader-types.js";

/** What one chat holds while it runs; slash commands change it. */
export interface ChatState {
  readonly term: Terminal;
  readonly client: AgentClient;
  readonly reader: LineReader;
  sessionId: string;
  /** False while the session is a new lazy handle: nothing is on disk before its first turn. */
  saved: boolean;
  model: string;
  effort: string | null;
  permissions: Permissions | undefined;
  /** Images for the next message (`/image`, image-command.ts). */
  images: TurnAttachment[];
}

/** "session 1f0c… (new: saved by its first turn)" or just "session 1f0c…". */
export function sessionLabel(state: ChatState): string {
  return state.saved
    ? `session ${state.sessionId}`
    : `session ${state.sessionId} (new: not saved until its first turn)`;
}

/** The line a chat leaves on quitting: how to come back, or that nothing was kept. */
export function farewell(state: ChatState): string {
  return state.saved
    ? `Resume this session with: mc-agent resume ${state.sessionId}`
    : "Nothing was saved: no turn ran in this session.";
}

export function note(state: ChatState, text: string, color = "2"): void {
  state.term.note(state.term.paintNote(text, color));
}
