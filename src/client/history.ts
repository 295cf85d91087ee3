import type { SessionEvent } from "../protocol/schemas/sessions.js";
import type { Caller } from "./caller.js";
import type { CallOptions } from "./connection.js";
import { followCursor, withCursor } from "./pager.js";

/** Yields a session's events one page at a time, following its cursor chain to the end. */
export async function* readHistory(
  client: Caller,
  id: string,
  options: CallOptions,
): AsyncGenerator<SessionEvent[]> {
  const pages = followCursor(
    (cursor) => client.call("session.history", withCursor({ id }, cursor), options),
    "history",
  );
  for await (const page of pages) yield page.events;
}

/**
 * Yields a subagent's events (`session.subagent_history`, capability `subagents`) one page at a
 * time: `subagentId` is the `subagent_id` of its `subagent_event`s, `id` its parent session.
 */
export async function* readSubagentHistory(
  client: Caller,
  id: string,
  subagentId: string,
  options: CallOptions,
): AsyncGenerator<SessionEvent[]> {
  const pages = followCursor(
    (cursor) =>
      client.call(
        "session.subagent_history",
        withCursor({ id, subagent_id: subagentId }, cursor),
        options,
      ),
    "history",
  );
  for await (const page of pages) yield page.events;
}
