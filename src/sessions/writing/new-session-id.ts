import { randomUUID } from "node:crypto";
import { primaryName, sessionsDir } from "../../store/layout.js";
import { entryExists } from "../../store/safe-open.js";

/**
 * `session.create`: a lazy handle. Nothing is written; the ID (a UUID, inside the session ID
 * grammar) is one no existing entry uses, and it stays out of every listing until a first turn
 * saves it.
 */
export function newLazySessionId(home: string): string {
  const root = sessionsDir(home);
  for (;;) {
    const id = randomUUID();
    if (!entryExists(root, primaryName(id))) return id;
  }
}
