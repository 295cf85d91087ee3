import { checkpointsAvailability } from "../../agent/checkpoints/availability.js";
import { keepOutOf } from "../../agent/checkpoints/keep-out.js";
import { claimPruning, PRUNE_POLICY, pruneClaimed } from "../../agent/checkpoints/prune.js";
import { ShadowRepo } from "../../agent/checkpoints/shadow-repo.js";
import {
  startTurnCheckpoints,
  type TurnCheckpoints,
} from "../../agent/checkpoints/turn-checkpoints.js";
import type { CheckpointsAvailability } from "../../protocol/schemas/checkpoints.js";
import type { Permissions } from "../../protocol/schemas/turns.js";
import { storePaths } from "../../store/store-paths.js";
import type { ServerState } from "../state.js";

/** This child's checkpoints: git found on PATH once, one shadow repository of its workspace. */
export interface ChildCheckpoints {
  availability: CheckpointsAvailability;
  repo: ShadowRepo | null;
  /** A turn's checkpoints, started now; null under `read_only` or without git. */
  forTurn(permissions: Permissions): TurnCheckpoints | null;
}

const cache = new WeakMap<ServerState, ChildCheckpoints>();

/**
 * `found`: the availability the starter found with this child's inputs (src/server/turn-facts.ts)
 * and answered with, taken as this child's at its first call.
 */
export function childCheckpoints(
  state: ServerState,
  found?: CheckpointsAvailability,
): ChildCheckpoints {
  const known = cache.get(state);
  if (known) return known;
  const keepOut = keepOutOf(state.cwd, storePaths(state.home, state.env));
  const availability = found ?? checkpointsAvailability(state.env, keepOut);
  const repo = availability.available
    ? new ShadowRepo({
        home: state.home,
        workspace: state.cwd,
        env: state.env,
        keepOut: keepOut.paths,
      })
    : null;
  const prune = repo ? pruner(state, repo) : async () => {};
  const made: ChildCheckpoints = {
    availability,
    repo,
    forTurn: (permissions) => {
      if (!repo || permissions === "read_only") return null;
      const turn = startTurnCheckpoints(repo);
      return {
        id: turn.id,
        before: () => turn.before(),
        after: async (hurry) => {
          const outcome = await turn.after(hurry);
          // After the turn's last checkpoint; only the daily stamp is awaited, the pruning runs
          // in the background. Never for a turn in a hurry.
          if (!hurry) await prune();
          return outcome;
        },
      };
    },
  };
  cache.set(state, made);
  return made;
}

/**
 * Claims a pruning of the workspace's old checkpoints when one is due (prune.ts: its stamp
 * makes it daily per workspace) and starts it in the background, one at a time, aborted by
 * the child's shutdown.
 */
function pruner(state: ServerState, repo: ShadowRepo): () => Promise<void> {
  const stop = new AbortController();
  let running: Promise<void> | null = null;
  state.closers.push(async () => {
    stop.abort();
    await running;
  });
  return async () => {
    if (running || stop.signal.aborted) return;
    if (!(await claimPruning(repo, PRUNE_POLICY).catch(() => false))) return;
    running = pruneClaimed(repo, PRUNE_POLICY, stop.signal)
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        running = null;
      });
  };
}
