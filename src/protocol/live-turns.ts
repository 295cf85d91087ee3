import { isRecordStub } from "./record-text.js";
import type { SessionEvent } from "./schemas/sessions.js";
import { fitChars } from "./text-cut.js";

/** One turn the session's context still holds: its ID and the first line of its message. */
export interface LiveTurn {
  id: string;
  firstLine: string;
}

/**
 * A session's live turns, oldest first, folded from its `session.history` records in order:
 * every `turn_start`, less the ones a `revert` record undid (its turn and every later one), as
 * the engine's context leaves them out. A message too long for a history page comes as a stub:
 * "(a long message)". Shared by every frontend's undo (the CLI's /undo, ACP's /undo).
 */
export class LiveTurns {
  readonly turns: LiveTurn[] = [];

  add(event: SessionEvent): void {
    const turnId = typeof event.turn_id === "string" ? event.turn_id : null;
    if (turnId === null) return;
    if (event.type === "turn_start") this.turns.push({ id: turnId, firstLine: "" });
    else if (event.type === "revert") {
      const at = this.turns.findIndex((t) => t.id === turnId);
      if (at >= 0) this.turns.splice(at);
    } else if (event.type === "user_message") {
      const turn = this.turns.find((t) => t.id === turnId);
      if (turn && turn.firstLine === "")
        turn.firstLine = isRecordStub(event) ? "(a long message)" : firstLineOf(event.text);
    }
  }
}

function firstLineOf(text: unknown): string {
  const line = typeof text === "string" ? (text.trim().split("\n")[0] ?? "") : "";
  return fitChars(line, 60) || "(empty)";
}
