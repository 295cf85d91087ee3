import { checkpointsAvailability } from "../agent/checkpoints/availability.js";
import { keepOutOf } from "../agent/checkpoints/keep-out.js";
import type { CheckpointsAvailability } from "../protocol/schemas/checkpoints.js";
import { storePaths } from "../store/store-paths.js";

/**
 * For `mc-agent doctor`: whether a child of this folder records checkpoints, by the engine's own
 * tests (git on PATH; a workspace outside mc's stores), asked without a child.
 */
export function checkpointsAvailable(
  env: NodeJS.ProcessEnv,
  home: string,
  cwd: string,
): CheckpointsAvailability {
  return checkpointsAvailability(env, keepOutOf(cwd, storePaths(home, env)));
}
