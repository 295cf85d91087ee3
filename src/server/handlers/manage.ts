import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import { moveSession } from "../../sessions/manage/archive.js";
import { type DeletionParts, deleteSession } from "../../sessions/manage/delete.js";
import { renameSession } from "../../sessions/manage/rename.js";
import { sessionUsage } from "../../sessions/manage/usage.js";
import { forgetSearchEntries } from "../../sessions/search/search-index.js";
import { Slicer } from "../../sessions/slicer.js";
import { verdictPlace } from "../../sessions/verdicts/verdict-root.js";
import { archiveDir } from "../../store/layout.js";
import type { HandlerTable, RequestContext } from "../handler.js";
import type { ServerState } from "../state.js";
import type { TestSeam } from "../test-seam.js";
import { orArchived } from "./archived-read.js";
import { removeSessionCheckpoints } from "./checkpoint-removal.js";
import { discoveryHandler } from "./discovery.js";

/**
 * Capability `session.manage` (docs/local-agent-protocol.md, "Managing sessions"). The
 * mutations (rename, archive, unarchive, delete) run on the session worker (`busy` while a turn
 * of this child runs) and take the session's writer lock (`session_locked` while another
 * process's turn holds it); each has one commit point, before which a cancel changes nothing.
 * Archiving or deleting the attached session detaches it. session.archived pages
 * `sessions/archive/` as session.discover pages `sessions/`; session.usage sums a history.
 */
export function manageHandlers(state: ServerState, seam: TestSeam): HandlerTable {
  const step = (operation: string) => (name: string) => seam.manageStep?.(operation, name);
  const commitDetaching = (ctx: RequestContext, id: string) => (effect: () => void) =>
    ctx.commit(() => {
      effect();
      if (state.attachment?.session_id === id) state.attachment = null;
    });
  const archived = discoveryHandler(state, { root: archiveDir(state.home), prefix: "a" });
  return {
    "session.rename": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      const commit = () => ctx.commit(() => undefined);
      const session = await renameSession(
        state.home,
        state.cwd,
        params.id,
        params.title,
        slicer,
        commit,
      );
      return { session };
    },

    "session.archive": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      const commit = commitDetaching(ctx, params.id);
      const hook = step("session.archive");
      await moveSession(state.home, state.cwd, params.id, "archive", slicer, commit, hook);
      return { id: params.id, archived: true };
    },

    "session.unarchive": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      const commit = (effect: () => void) => ctx.commit(effect);
      const hook = step("session.unarchive");
      await moveSession(state.home, state.cwd, params.id, "unarchive", slicer, commit, hook);
      return { id: params.id, archived: false };
    },

    "session.archived": (params, ctx) => archived(params, ctx),

    "session.delete": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      // The user's cache root: the verdict file and the search-index entry both live there.
      const place = verdictPlace(state.env, state.home);
      const parts: DeletionParts = {
        removeCheckpoints: (id, checkpoints) => removeSessionCheckpoints(state, id, checkpoints),
        verdictFile: (id) => (place ? join(place.folder, `${id}.json`) : null),
        forgetSearch: (id) => {
          if (place) forgetSearchEntries(place.folder, state.cwd, id);
        },
        step: step("session.delete"),
      };
      const commit = commitDetaching(ctx, params.id);
      await deleteSession(state.home, state.cwd, params.id, slicer, commit, parts);
      return { id: params.id, deleted: true as const };
    },

    "session.usage": async (params, ctx) => {
      if (state.attachment?.session_id === params.id && !state.attachment.saved)
        throw new ProtocolError("session_missing");
      const slicer = new Slicer(ctx.signal);
      return orArchived(state, (inArchive) =>
        sessionUsage(state.home, state.cwd, params.id, slicer, inArchive),
      );
    },
  };
}
