import { readingWhole } from "../../boot/heap-flags.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { Attachment } from "../../protocol/schemas/lifecycle.js";
import {
  firstHistoryPage,
  type HistoryPosition,
  historyPage,
} from "../../sessions/history/history-page.js";
import { KnownRecords } from "../../sessions/history/known-records.js";
import { openExact } from "../../sessions/history/open.js";
import { buildSnapshot, type ListSnapshot, listPage } from "../../sessions/listing/list.js";
import { noticesOf } from "../../sessions/listing/notices.js";
import { Slicer } from "../../sessions/slicer.js";
import { VerdictCache } from "../../sessions/verdicts/verdict-cache.js";
import { newLazySessionId } from "../../sessions/writing/new-session-id.js";
import { StoreUnavailable } from "../../store/safe-open.js";
import { CursorStore } from "../cursors.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import type { TestSeam } from "../test-seam.js";
import { orArchived } from "./archived-read.js";
import { discoveryHandler } from "./discovery.js";
import { historyMemoOf } from "./history-memo-of.js";
import { searchHandler } from "./search.js";
import { recordHandler } from "./session-record.js";

interface ListPosition {
  snapshot: ListSnapshot;
  offset: number;
}

/**
 * session.list, session.create, session.open, session.history, session.record and
 * session.discover.
 */
export function sessionHandlers(state: ServerState, seam: TestSeam): HandlerTable {
  // MC_AGENT_VERDICTS=off disables the cache in any build (a bench's "no cache" side, and a way
  // out); the seam's timing is the contract's unless this is a test build.
  const enabled = state.env.MC_AGENT_VERDICTS !== "off";
  const verdicts = new VerdictCache(state.home, state.env, { enabled, ...seam.verdictTiming });
  // At shutdown the queued verdicts are dropped: writing them would hold the exit.
  state.closers.push(() => verdicts.writer.stop());
  // Few live list cursors: each holds a snapshot of up to 256 entries.
  const listCursors = new CursorStore<ListPosition>("l", 8);
  const historyCursors = new CursorStore<HistoryPosition>("h", 64);
  // Where session.history's stubbed records are, for session.record's first call.
  const known = new KnownRecords();
  return {
    "session.list": (params, ctx) =>
      storeErrors(async () => {
        const position = params.cursor
          ? takeLive(listCursors, params.cursor)
          : {
              snapshot: await buildSnapshot(
                state.home,
                state.cwd,
                new Slicer(ctx.signal),
                verdicts,
              ),
              offset: 0,
            };
        const page = listPage(position.snapshot, position.offset);
        const cursor =
          page.next === null ? null : listCursors.issue({ ...position, offset: page.next });
        return {
          sessions: page.sessions,
          notices: noticesOf(position.snapshot.counts),
          cursor,
          complete: cursor === null,
        };
      }),

    "session.create": (_params, ctx) => {
      const session = { id: newLazySessionId(state.home), saved: false as const };
      ctx.commit(() => {
        state.attachmentEnds?.();
        state.attachment = { session_id: session.id, saved: false };
      });
      return { session };
    },

    "session.open": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      // With `turn`, through the memo the first admission resumes from (history-memo-of.ts).
      const { entry } = await readingWhole(() =>
        state.negotiated.has("turn")
          ? historyMemoOf(state).open(state.home, state.cwd, params.id, slicer, state.warmFirstTurn)
          : openExact(state.home, state.cwd, params.id, slicer),
      );
      ctx.commit(() => {
        state.attachmentEnds?.();
        state.attachment = { session_id: entry.id, saved: true };
      });
      return { session: entry };
    },

    "session.history": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      if (!params.cursor && isLazyHandle(state.attachment, params.id))
        return { events: [], cursor: null, complete: true };
      let page: Awaited<ReturnType<typeof historyPage>>;
      if (params.cursor) {
        // Peek, check, then take: a refused cursor stays usable for its own session.
        const position = historyCursors.peek(params.cursor);
        if (position === undefined) throw new ProtocolError("stale_revision");
        if (position.id !== params.id)
          throw new ProtocolError("invalid_params", "The cursor belongs to another session.");
        historyCursors.take(params.cursor);
        page = await historyPage(state.home, position, slicer, known);
      } else {
        page = await orArchived(state, (archived) =>
          firstHistoryPage(state.home, state.cwd, params.id, slicer, known, archived),
        );
      }
      const cursor = page.next === null ? null : historyCursors.issue(page.next);
      return { events: page.events, cursor, complete: cursor === null };
    },

    "session.record": recordHandler(state, known),

    "session.discover": discoveryHandler(state, { verdicts }),

    "session.search": searchHandler(state, verdicts),
  };
}

function isLazyHandle(attachment: Attachment | null, id: string): boolean {
  return attachment !== null && !attachment.saved && attachment.session_id === id;
}

/** A well-formed cursor that is not live (used, unknown, evicted) is stale. */
function takeLive<T>(store: CursorStore<T>, cursor: string): T {
  const state = store.take(cursor);
  if (state === undefined) throw new ProtocolError("stale_revision");
  return state;
}

async function storeErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreUnavailable) throw new ProtocolError("discovery_unavailable");
    throw error;
  }
}
