import type {
  AgentClient,
  DiscoveryEvent,
  DiscoveryResult,
  SessionEntry,
} from "../../client/index.js";
import { interruptible } from "../connect.js";
import type { Terminal } from "../terminal.js";

/**
 * This folder's sessions once discovery has validated the complete inventory (never the
 * provisional rows), newest first: by `updated_at`, sessions without one last, ties in the
 * backend's order. A progress line shows on a terminal meanwhile; Ctrl-C cancels.
 */
export async function listSessions(term: Terminal, client: AgentClient): Promise<DiscoveryResult> {
  const result = await interruptible(term, (signal) =>
    client.discoverSessions({ signal, onProgress: (e) => showProgress(term, e) }),
  );
  term.clearStatus();
  return { ...result, sessions: newestFirst(result.sessions) };
}

export function newestFirst(sessions: readonly SessionEntry[]): SessionEntry[] {
  const time = (s: SessionEntry) => (s.updated_at ? Date.parse(s.updated_at) : Number.NaN);
  return [...sessions].sort((a, b) => {
    const ta = time(a);
    const tb = time(b);
    if (Number.isNaN(ta) || Number.isNaN(tb))
      return Number.isNaN(ta) ? (Number.isNaN(tb) ? 0 : 1) : -1;
    return tb - ta;
  });
}

function showProgress(term: Terminal, event: DiscoveryEvent): void {
  if (event.kind === "restart") {
    const why =
      event.reason === "stale_revision"
        ? "the store changed during the scan"
        : "the backend child was exhausted";
    term.status(`Discovering sessions: ${why}; starting again…`);
    return;
  }
  const rows = event.provisional.length;
  term.status(
    `Discovering sessions… ${rows} provisional ${rows === 1 ? "row" : "rows"}, ${event.pages} ${event.pages === 1 ? "step" : "steps"} (${event.progress})`,
  );
}
