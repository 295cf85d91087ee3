import { gitOnPath } from "../agent/checkpoints/availability.js";

/**
 * For `mc-agent doctor`: whether turns record checkpoints here, by the engine's own test (git on
 * PATH), asked without a child.
 */
export function checkpointsAvailable(env: NodeJS.ProcessEnv): boolean {
  return gitOnPath(env) !== null;
}
