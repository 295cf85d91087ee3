/**
 * Whether this child can record checkpoints: git on the PATH of its environment, and a
 * workspace outside mc's stores. Git is found by
 * looking at PATH (no process is started), once per child; a git that is there but fails shows
 * up later as a `checkpoint_failed` event, never as an error.
 */

import type { CheckpointsAvailability } from "../../protocol/schemas/checkpoints.js";
import { findOnPath } from "../tools/find-on-path.js";
import type { KeepOut } from "./keep-out.js";

export function gitOnPath(env: NodeJS.ProcessEnv): string | null {
  return findOnPath("git", env, { fileOnly: true });
}

/** `keepOut`: the stores the workspace holds (keep-out.ts); inside one, nothing is recorded. */
export function checkpointsAvailability(
  env: NodeJS.ProcessEnv,
  keepOut: KeepOut,
): CheckpointsAvailability {
  if (gitOnPath(env) === null) return { available: false, reason: "git_missing" };
  if (keepOut.workspaceInStore) return { available: false, reason: "workspace_in_store" };
  return { available: true, reason: null };
}
