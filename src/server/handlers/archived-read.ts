import { ProtocolError } from "../../protocol/codes.js";
import type { ServerState } from "../state.js";

/**
 * A read of a saved session (session.history, session.record) that also finds an archived one:
 * the active folder first; only when no history has that ID there, and `session.manage` was
 * negotiated, `sessions/archive/` (docs/store.md, "Archived sessions"). session.open never
 * does: an archived session cannot be attached.
 */
export async function orArchived<T>(
  state: ServerState,
  read: (archived: boolean) => Promise<T>,
): Promise<T> {
  try {
    return await read(false);
  } catch (error) {
    const missing = error instanceof ProtocolError && error.code === "session_missing";
    if (!missing || !state.negotiated.has("session.manage")) throw error;
    return read(true);
  }
}
