import { ProtocolError } from "../../protocol/codes.js";
import type { Attachment } from "../../protocol/schemas/lifecycle.js";
import type { KnownRecords } from "../../sessions/history/known-records.js";
import {
  locateRecord,
  type RecordPosition,
  readChunk,
} from "../../sessions/history/record-at-index.js";
import { Slicer } from "../../sessions/slicer.js";
import { CursorStore } from "../cursors.js";
import type { Handler } from "../handler.js";
import type { ServerState } from "../state.js";
import { orArchived } from "./archived-read.js";
import { NO_SUBAGENT, parentFolder } from "./subagent-history.js";

/**
 * `session.record` (docs/turns.md, "Records larger than a page"): a record's text chunk by
 * chunk. Cursors work as history cursors do: single-use, at most 64 live, and one given with
 * another session's ID or another index is `invalid_params` and consumes nothing.
 */
export function recordHandler(state: ServerState, known: KnownRecords): Handler<"session.record"> {
  const cursors = new CursorStore<RecordPosition>("r", 64);
  return async (params, ctx) => {
    const sub = params.subagent_id;
    if (sub !== undefined && !state.negotiated.has("subagents"))
      throw new ProtocolError("unsupported_capability");
    // A subagent's derived history is read by its file's own name, beside its parent's.
    const historyId = sub === undefined ? params.id : `${params.id}.${sub}`;
    let position: RecordPosition;
    if (params.cursor) {
      const held = cursors.peek(params.cursor);
      if (held === undefined) throw new ProtocolError("stale_revision");
      if (held.id !== historyId || held.index !== params.index)
        throw new ProtocolError("invalid_params", "The cursor belongs to another record.");
      cursors.take(params.cursor);
      position = held;
    } else {
      // The attached lazy handle has no history, so no record at any index.
      if (isLazyHandle(state.attachment, params.id))
        throw new ProtocolError("invalid_params", "The history has no record at that index.");
      const slicer = new Slicer(ctx.signal);
      const locate = (archived: boolean) =>
        locateRecord(state.home, state.cwd, historyId, params.index, slicer, known, archived);
      position =
        sub === undefined
          ? await orArchived(state, locate)
          : await subagentRecord(locate, parentFolder(state, params.id));
    }
    const { chunk, next } = readChunk(state.home, position);
    const cursor = next === null ? null : cursors.issue(next);
    return { ...chunk, cursor, complete: cursor === null };
  };
}

/** As `session.subagent_history`: beside the parent's history, and missing is said so. */
async function subagentRecord(
  locate: (archived: boolean) => Promise<RecordPosition>,
  archived: boolean,
): Promise<RecordPosition> {
  try {
    return await locate(archived);
  } catch (error) {
    if (error instanceof ProtocolError && error.code === "session_missing")
      throw new ProtocolError("session_missing", NO_SUBAGENT);
    throw error;
  }
}

function isLazyHandle(attachment: Attachment | null, id: string): boolean {
  return attachment !== null && !attachment.saved && attachment.session_id === id;
}
