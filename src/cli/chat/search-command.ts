import { ClientError, RemoteError, type SearchHit } from "../../client/index.js";
import { interruptible } from "../connect.js";
import { searchRow } from "../sessions/search-line.js";
import { type ChatState, note } from "./chat-state.js";
import { showRecap } from "./recap.js";

/** Hits /search lists; the search stops there (the CLI's `sessions search` lists them all). */
export const CHAT_SEARCH_SHOWN = 20;
const QUERY_MAX_CHARS = 256;

/**
 * `/search <text>`: this folder's sessions that mention `text` (session.search), numbered as
 * they arrive, then "Open which?": a number switches the chat to that hit's session (session.open,
 * then the recap of where it stood); Enter stays. Ctrl-C while searching cancels the search.
 */
export async function searchChat(state: ChatState, query: string): Promise<void> {
  if (query === "" || query.length > QUERY_MAX_CHARS) {
    note(state, `Usage: /search <text> (1 to ${QUERY_MAX_CHARS} characters).`, "33");
    return;
  }
  if (!state.client.has("session.search")) {
    note(state, "This backend cannot search sessions.", "33");
    return;
  }
  const hits = await listHits(state, query);
  if (hits === null) return;
  if (hits.length === 0) {
    note(state, "No session of this folder mentions it.");
    return;
  }
  await openPicked(state, hits);
}

/** The first hits, each printed as it arrives; null when the search was cancelled. */
async function listHits(state: ChatState, query: string): Promise<SearchHit[] | null> {
  const hits: SearchHit[] = [];
  try {
    await interruptible(state.term, async (signal) => {
      for await (const page of state.client.search(query, { signal }))
        for (const hit of page) {
          hits.push(hit);
          const mark = hit.id === state.sessionId ? "*" : " ";
          state.term.note(
            `${String(hits.length).padStart(3)}${mark} ${searchRow(state.term, hit, query)}`,
          );
          if (hits.length >= CHAT_SEARCH_SHOWN) {
            note(
              state,
              `… stopped at ${CHAT_SEARCH_SHOWN} hits ("mc-agent sessions search" lists every one).`,
            );
            return;
          }
        }
    });
  } catch (error) {
    const cancelled =
      (error instanceof RemoteError && error.code === "operation_cancelled") ||
      (error instanceof ClientError && error.code === "aborted");
    if (!cancelled) throw error;
    note(state, "Search cancelled.");
    return null;
  }
  return hits;
}

async function openPicked(state: ChatState, hits: SearchHit[]): Promise<void> {
  for (;;) {
    const answer = await state.reader.ask("Open which? (number; Enter stays here): ");
    if (answer.kind !== "line" || answer.text.trim() === "") return;
    const text = answer.text.trim();
    const hit = /^\d+$/.test(text) ? hits[Number(text) - 1] : undefined;
    if (!hit) {
      note(state, `Pick a number from 1 to ${hits.length}, or Enter to stay.`, "33");
      continue;
    }
    if (hit.id === state.sessionId && state.saved) {
      note(state, `Already in session ${hit.id}.`);
      return;
    }
    try {
      const session = await state.client.open(hit.id);
      state.sessionId = session.id;
      state.saved = true;
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      note(state, `Not opened: ${error.message}`, "33");
      return;
    }
    note(
      state,
      `Now in session ${hit.id}${hit.title ? ` (${hit.title})` : ""}; the match is its record #${hit.record_index}.`,
    );
    await showRecap(state);
    return;
  }
}
