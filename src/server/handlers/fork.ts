import type { ForkedFrom } from "../../protocol/schemas/fork.js";
import { prepareFork } from "../../sessions/fork/fork-copy.js";
import { DerivedCopies, derivedOf } from "../../sessions/fork/fork-derived.js";
import { planFork } from "../../sessions/fork/fork-plan.js";
import { Slicer } from "../../sessions/slicer.js";
import { newLazySessionId } from "../../sessions/writing/new-session-id.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";

/**
 * session.fork: plan (the source read whole, every refusal before anything is written), copy to
 * a temp file, then one commit point that links the new history and attaches it, as
 * `session.open` attaches (a cancel observed before it leaves no trace). The derived histories of
 * the subagents it keeps are copied too and linked in the same commit (fork-derived.ts). The
 * source is only read.
 */
export function forkHandlers(state: ServerState): HandlerTable {
  return {
    "session.fork": async (params, ctx) => {
      const slicer = new Slicer(ctx.signal);
      const forkedFrom: ForkedFrom = { id: params.id, turn_id: params.turn_id ?? null };
      const id = newLazySessionId(state.home);
      const meta = {
        type: "session_meta",
        ts: new Date().toISOString(),
        cwd: state.cwd,
        id,
        forked_from: forkedFrom,
      };
      const derived = await derivedOf(state.home, params.id);
      const plan = await planFork(
        state.home,
        state.cwd,
        params.id,
        forkedFrom.turn_id,
        meta,
        slicer,
        derived,
      );
      const prepared = await prepareFork(state.home, params.id, id, meta, plan, slicer);
      let copies: DerivedCopies;
      try {
        copies = await DerivedCopies.prepare(
          state.home,
          state.cwd,
          { source: params.id, fork: id },
          plan.subagents,
          slicer,
        );
      } catch (error) {
        await prepared.discard();
        throw error;
      }
      try {
        ctx.commit(() => {
          // The subagents' histories first (names no reader lists), then the fork itself.
          copies.link();
          try {
            prepared.link();
          } catch (error) {
            copies.unlink();
            throw error;
          }
          state.attachmentEnds?.();
          state.attachment = { session_id: id, saved: true };
        });
      } catch (error) {
        await copies.discard();
        await prepared.discard();
        throw error;
      }
      await copies.settle();
      await prepared.settle();
      return {
        session: plan.summary.entry(id, false),
        forked_from: forkedFrom,
        turns: plan.turns,
      };
    },
  };
}
