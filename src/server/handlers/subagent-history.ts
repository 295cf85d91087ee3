/**
 * `session.subagent_history` (capability `subagents`, docs/turns.md "Subagents"): the derived
 * history `sessions/<id>.<subagent_id>.jsonl` of one subagent, paged exactly as
 * `session.history` pages a session (the first page validates the whole file under the exact
 * open rules, continuations require it unchanged). The parent must be a saved session here (or
 * archived, with `session.manage`); its subagent's file is looked for beside it only.
 */
import { ProtocolError } from "../../protocol/codes.js";
import {
  firstHistoryPage,
  type HistoryPosition,
  historyPage,
} from "../../sessions/history/history-page.js";
import { Slicer } from "../../sessions/slicer.js";
import { historyFolder, primaryName } from "../../store/layout.js";
import { closeQuietly, openPrimary } from "../../store/safe-open.js";
import { CursorStore } from "../cursors.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";

export const NO_SUBAGENT = "That session has no subagent with that ID.";

export function subagentHistoryHandlers(state: ServerState): HandlerTable {
  const cursors = new CursorStore<HistoryPosition>("a", 64);
  return {
    "session.subagent_history": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      const derivedId = `${params.id}.${params.subagent_id}`;
      let page: Awaited<ReturnType<typeof historyPage>>;
      if (params.cursor) {
        // Peek, check, then take: a refused cursor stays usable for its own history.
        const position = cursors.peek(params.cursor);
        if (position === undefined) throw new ProtocolError("stale_revision");
        if (position.id !== derivedId)
          throw new ProtocolError("invalid_params", "The cursor belongs to another history.");
        cursors.take(params.cursor);
        page = await historyPage(state.home, position, slicer);
      } else {
        const archived = parentFolder(state, params.id);
        try {
          page = await firstHistoryPage(
            state.home,
            state.cwd,
            derivedId,
            slicer,
            undefined,
            archived,
          );
        } catch (error) {
          if (error instanceof ProtocolError && error.code === "session_missing")
            throw new ProtocolError("session_missing", NO_SUBAGENT);
          throw error;
        }
      }
      const cursor = page.next === null ? null : cursors.issue(page.next);
      return { events: page.events, cursor, complete: cursor === null };
    },
  };
}

/**
 * Where the parent's history is: `sessions/` (false), else `sessions/archive/` (true) when
 * `session.manage` was negotiated. No saved history (a lazy handle included) is
 * `session_missing`; an unsafe or unreadable one `session_invalid`.
 */
export function parentFolder(state: ServerState, id: string): boolean {
  const folders = state.negotiated.has("session.manage") ? [false, true] : [false];
  for (const archived of folders) {
    const opened = openPrimary(historyFolder(state.home, archived), primaryName(id));
    if (opened.ok) {
      closeQuietly(opened.fd);
      return archived;
    }
    if (opened.problem !== "missing") throw new ProtocolError("session_invalid");
  }
  throw new ProtocolError("session_missing");
}
