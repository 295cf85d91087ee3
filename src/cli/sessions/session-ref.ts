import type { AgentClient, SessionEntry } from "../../client/index.js";
import { ActionableError } from "../failure.js";
import type { Terminal } from "../terminal.js";
import { listSessions } from "./session-list.js";

/**
 * The session a user named: the exact ID, else the one session of this folder whose ID starts
 * with `ref`. The CLI resolves the prefix against the validated listing; the backend still
 * opens only exact IDs. A ref that matches nothing is passed on as it is, so the backend's own
 * answer (session_missing, …) says what is wrong; several matches are an error naming them.
 * Without session.discover (another backend) the ref is taken as exact.
 */
export async function resolveSessionRef(
  term: Terminal,
  client: AgentClient,
  ref: string,
): Promise<string> {
  if (!client.has("session.discover")) return ref;
  const { sessions } = await listSessions(term, client);
  return pickByPrefix(sessions, ref);
}

/** The protocol's session ID grammar: anything else goes to the backend as it is. */
const ID_GRAMMAR = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function pickByPrefix(sessions: readonly SessionEntry[], ref: string): string {
  if (!ID_GRAMMAR.test(ref) || sessions.some((s) => s.id === ref)) return ref;
  const matches = sessions.filter((s) => s.id.startsWith(ref));
  if (matches.length === 1) return (matches[0] as SessionEntry).id;
  if (matches.length === 0) return ref;
  const shown = matches.slice(0, 5).map((s) => s.id);
  throw new ActionableError(
    "session_ambiguous",
    `"${ref}" is the start of ${matches.length} session IDs of this folder`,
    `Type more of it: ${shown.join(", ")}${matches.length > 5 ? ", …" : ""}.`,
  );
}
