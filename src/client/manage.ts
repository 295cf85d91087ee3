import type { ResultOf } from "../protocol/methods.js";
import type { SessionEntry } from "../protocol/schemas/sessions.js";
import type { Caller } from "./caller.js";
import type { CallOptions } from "./connection.js";
import { RemoteError } from "./errors.js";

/** Fresh `session.archived` scans one stale page restarts before giving up (a store in flux). */
const RESTARTS = 3;

/**
 * Every archived session of this workspace (`session.archived`, capability `session.manage`),
 * following the cursors to validated completion as session discovery does; a scan that turns
 * stale (the archive changed under it) starts again, at most a few times.
 */
export async function archivedSessions(
  client: Caller,
  options: CallOptions = {},
): Promise<SessionEntry[]> {
  for (let attempt = 0; ; attempt += 1) {
    const sessions: SessionEntry[] = [];
    let cursor: string | undefined;
    try {
      for (;;) {
        const page: ResultOf<"session.archived"> = await client.call(
          "session.archived",
          cursor === undefined ? {} : { cursor },
          options,
        );
        sessions.push(...page.sessions);
        if (page.cursor === null) return sessions;
        cursor = page.cursor;
      }
    } catch (error) {
      const stale = error instanceof RemoteError && error.code === "stale_revision";
      if (!stale || attempt >= RESTARTS) throw error;
    }
  }
}
