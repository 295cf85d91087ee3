import { checkpointsAvailability } from "../../agent/checkpoints/availability.js";
import { PRUNE_POLICY, pruneCheckpoints } from "../../agent/checkpoints/prune.js";
import { ShadowRepo } from "../../agent/checkpoints/shadow-repo.js";
import {
  startTurnCheckpoints,
  type TurnCheckpoints,
} from "../../agent/checkpoints/turn-checkpoints.js";
import type { CheckpointsAvailability } from "../../protocol/schemas/checkpoints.js";
import type { Permissions } from "../../protocol/schemas/turns.js";
import type { ServerState } from "../state.js";

/** This child's checkpoints: git found on PATH once, one shadow repository of its workspace. */
export interface ChildCheckpoints {
  availability: CheckpointsAvailability;
  repo: ShadowRepo | null;
  /** A turn's checkpoints, started now; null under `read_only` or without git. */
  forTurn(permissions: Permissions): TurnCheckpoints | null;
}

const cache = new WeakMap<ServerState, ChildCheckpoints>();

export function childCheckpoints(state: ServerState): ChildCheckpoints {
  const known = cache.get(state);
  if (known) return known;
  const availability = checkpointsAvailability(state.env);
  const repo = availability.available
    ? new ShadowRepo({ home: state.home, workspace: state.cwd, env: state.env })
    : null;
  const prune = repo ? pruner(state, repo) : () => {};
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
          // After the turn's last checkpoint, never awaited by it; not for a turn in a hurry.
          if (!hurry) prune();
          return outcome;
        },
      };
    },
  };
  cache.set(state, made);
  return made;
}

/**
 * Starts a pruning of the workspace's old checkpoints (prune.ts) in the background, one at a
 * time (its stamp makes it daily per workspace), aborted by the child's shutdown.
 */
function pruner(state: ServerState, repo: ShadowRepo): () => void {
  const stop = new AbortController();
  let running: Promise<void> | null = null;
  state.closers.push(async () => {
    stop.abort();
    await running;
  });
  return () => {
    if (running || stop.signal.aborted) return;
    running = pruneCheckpoints(repo, PRUNE_POLICY, stop.signal)
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        running = null;
      });
  };
}
