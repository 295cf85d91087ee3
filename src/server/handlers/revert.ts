import type { RevertInputs } from "../../agent/checkpoints/revert.js";
import { SessionTurns } from "../../agent/checkpoints/session-turns.js";
import { ProtocolError } from "../../protocol/codes.js";
import { LIMITS } from "../../protocol/constants.js";
import type { ParamsOf } from "../../protocol/methods.js";
import { openExact } from "../../sessions/history/open.js";
import type { TurnRecordBody } from "../../sessions/records/turn-records.js";
import { Slicer } from "../../sessions/slicer.js";
import { SessionWriter } from "../../sessions/writing/writer.js";
import type { HandlerTable, RequestContext } from "../handler.js";
import type { ServerState } from "../state.js";
import { childCheckpoints } from "./checkpoints.js";

const NO_GIT =
  "Checkpoints are unavailable in this backend (git is not on its PATH): nothing can be reverted.";

/**
 * turn.revert (docs/checkpoints.md): on the session worker. A dry run reads the history and the
 * workspace and writes nothing; a revert takes the session's writer lock first (a live writer
 * elsewhere: `session_locked`), is cancellable until its commit, then completes. The revert's
 * code (with the diff library, 100 KB) is imported on the first turn.revert, not at the child's
 * start (docs/benchmarks.md, "Start-up profile").
 */
export function revertHandlers(state: ServerState): HandlerTable {
  return {
    "turn.revert": async (params, ctx) => {
      const repo = childCheckpoints(state).repo;
      if (!repo) throw new ProtocolError("checkpoint_missing", NO_GIT);
      const { applyRevert, dryRun, prepareRevert } = await import(
        "../../agent/checkpoints/revert.js"
      );
      if (params.dry_run) {
        const turns = await readTurns(state, params, ctx);
        const inputs = { repo, params, turns, pageBytes: LIMITS.page_bytes, signal: ctx.signal };
        return dryRun(inputs, await prepareRevert(inputs));
      }
      if (params.cursor !== undefined)
        throw new ProtocolError("invalid_params", "A cursor pages a dry run only.");
      const writer = await SessionWriter.acquire({
        home: state.home,
        cwd: state.cwd,
        id: params.session_id,
        create: false,
      });
      try {
        const turns = await readTurns(state, params, ctx);
        const inputs: RevertInputs = {
          repo,
          params,
          turns,
          pageBytes: LIMITS.page_bytes,
          signal: ctx.signal,
        };
        const prepared = await prepareRevert(inputs);
        if (prepared.plan.workspaceChanged && params.force !== true)
          throw new ProtocolError("workspace_changed");
        // The point of no return: cancelled before it, nothing was written; after it the
        // revert completes (and answers its result).
        ctx.commit(() => undefined);
        const settled = { ...inputs, signal: new AbortController().signal };
        return await applyRevert(settled, prepared, (checkpoint, turnsReverted) =>
          writer.append(
            { type: "revert", checkpoint, turns_reverted: turnsReverted } as TurnRecordBody,
            params.turn_id,
            { sync: true },
          ),
        );
      } finally {
        await writer.close();
      }
    },
  };
}

/** The session's turns, from one exact open of its whole history (every verdict included). */
async function readTurns(
  state: ServerState,
  params: ParamsOf<"turn.revert">,
  ctx: RequestContext,
): Promise<SessionTurns> {
  const turns = new SessionTurns();
  await openExact(state.home, state.cwd, params.session_id, new Slicer(ctx.signal), {
    sink: turns.add,
  });
  return turns;
}
