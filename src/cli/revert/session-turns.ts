import { type AgentClient, isRecordStub } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";

/** One turn the session's context still holds: its ID and the first line of its message. */
export interface LiveTurn {
  id: string;
  firstLine: string;
}

/**
 * The session's live turns, oldest first, read from session.history: every `turn_start`, less
 * the ones a `revert` record undid (its turn and every later one), as the engine's context
 * leaves them out. A message too long for a history page comes as a stub: "(a long message)".
 */
export async function liveTurns(client: AgentClient, sessionId: string): Promise<LiveTurn[]> {
  const turns: LiveTurn[] = [];
  for await (const page of client.history(sessionId))
    for (const event of page) {
      const turnId = typeof event.turn_id === "string" ? event.turn_id : null;
      if (turnId === null) continue;
      if (event.type === "turn_start") turns.push({ id: turnId, firstLine: "" });
      else if (event.type === "revert") {
        const at = turns.findIndex((t) => t.id === turnId);
        if (at >= 0) turns.splice(at);
      } else if (event.type === "user_message") {
        const turn = turns.find((t) => t.id === turnId);
        if (turn && turn.firstLine === "")
          turn.firstLine = isRecordStub(event) ? "(a long message)" : firstLineOf(event.text);
      }
    }
  return turns;
}

function firstLineOf(text: unknown): string {
  const line = typeof text === "string" ? (text.trim().split("\n")[0] ?? "") : "";
  return fitChars(line, 60) || "(empty)";
}
