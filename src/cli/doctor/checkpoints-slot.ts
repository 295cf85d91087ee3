import { gitOnPath } from "../../agent/checkpoints/availability.js";

/**
 * Whether turns record checkpoints here: the engine's own test (git on PATH), asked from the
 * doctor's folder because only `cli/doctor/` reads the store and the engine directly.
 */
export function checkpointsAvailable(env: NodeJS.ProcessEnv): boolean {
  return gitOnPath(env) !== null;
}
