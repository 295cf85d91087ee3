import type { Request } from "../protocol/envelope.js";
import { newLazySessionId } from "../sessions/writing/new-session-id.js";

/**
 * A `session.create` answered without zod and before the rest of the child has loaded
 * (src/boot/starter.ts; docs/local-agent-protocol.md, "Fast start"), as the initialize before it.
 * `session.create` writes nothing: its answer is a lazy handle, a fresh UUID no entry of the
 * store uses (src/sessions/writing/new-session-id.ts, the child's own code). A frontend's session
 * is then ready while the child loads; its first turn waits for the load as before.
 *
 * The hand check accepts only the one request the full child answers the same way whatever it
 * holds: `session.create` right after the initialize the starter answered, which negotiated it,
 * with another ID and empty params. Anything else (any param, the initialize's own ID, a
 * capability not negotiated) is the full child's to answer, with its own error. The child adopts
 * what was answered (src/server/stdio.ts): the ID counts as used, the request as admitted, and
 * the handle is its attachment. test/boot/fast-start-session.test.ts holds both paths to the
 * same answer.
 */

/** What the starter answered: the request's ID and the lazy session's. */
export interface SessionCreated {
  id: string;
  sessionId: string;
}

/** The initialize the starter answered (src/boot/starter.ts `Handover.initialized`). */
interface Initialized {
  id: string;
  capabilities: readonly string[];
}

/** Whether the starter may answer `request` itself (it then writes nothing before answering). */
export function isFastSessionCreate(request: Request, initialized: Initialized): boolean {
  return (
    request.method === "session.create" &&
    request.id !== initialized.id &&
    initialized.capabilities.includes("session.create") &&
    Object.keys(request.params).length === 0
  );
}

/**
 * The answer's line (with its LF) and what the child adopts, for a request the check accepted;
 * `home` is the child's MC_HOME, derived as the child derives it.
 */
export function fastSessionCreate(
  request: Request,
  home: string,
): { line: string; created: SessionCreated } {
  const sessionId = newLazySessionId(home);
  const result = { session: { id: sessionId, saved: false } };
  return {
    line: `${JSON.stringify({ id: request.id, result })}\n`,
    created: { id: request.id, sessionId },
  };
}
