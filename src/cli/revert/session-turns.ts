import type { AgentClient } from "../../client/index.js";
import { type LiveTurn, LiveTurns } from "../../protocol/live-turns.js";

export type { LiveTurn } from "../../protocol/live-turns.js";

/** The session's live turns, oldest first (protocol/live-turns.ts), read from session.history. */
export async function liveTurns(client: AgentClient, sessionId: string): Promise<LiveTurn[]> {
  const live = new LiveTurns();
  for await (const page of client.history(sessionId)) for (const event of page) live.add(event);
  return live.turns;
}
