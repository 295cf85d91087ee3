import type { ResultOf } from "../protocol/methods.js";
import type { SessionEvent } from "../protocol/schemas/sessions.js";
import type { AgentClient } from "./client.js";
import type { CallOptions } from "./connection.js";
import { ClientError } from "./errors.js";

/** Yields a session's events one page at a time, following its cursor chain to the end. */
export async function* readHistory(
  client: AgentClient,
  id: string,
  options: CallOptions,
): AsyncGenerator<SessionEvent[]> {
  let cursor: string | null = null;
  for (;;) {
    const page: ResultOf<"session.history"> = await client.call(
      "session.history",
      cursor ? { id, cursor } : { id },
      options,
    );
    yield page.events;
    if (page.complete) return;
    if (page.cursor === null)
      throw new ClientError("protocol_violation", "An incomplete history page had no cursor.");
    cursor = page.cursor;
  }
}
