import { checkpointsAvailability } from "../../agent/checkpoints/availability.js";
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
  const made: ChildCheckpoints = {
    availability,
    repo,
    forTurn: (permissions) =>
      repo && permissions !== "read_only" ? startTurnCheckpoints(repo) : null,
  };
  cache.set(state, made);
  return made;
}
