import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { ServerState } from "../state.js";
import { childCheckpoints } from "./checkpoints.js";

const REF_PREFIX = "refs/mc/checkpoints/";

/**
 * A deleted session's checkpoints (session.delete): their refs in this workspace's shadow
 * repository, deleted in one `update-ref --stdin`, and the session's revert journal. The objects
 * they alone reached go with the next pruning's `git gc` (docs/checkpoints.md, "Pruning").
 * Without git, or without a shadow repository, there is nothing of ours to remove.
 */
export async function removeSessionCheckpoints(
  state: ServerState,
  sessionId: string,
  checkpoints: string[],
): Promise<void> {
  const repo = childCheckpoints(state).repo;
  if (!repo) return;
  await rm(join(repo.dir, "reverts", `${sessionId}.json`), { force: true });
  if (checkpoints.length === 0) return;
  await repo.git(["update-ref", "--stdin"], {
    input: checkpoints.map((id) => `delete ${REF_PREFIX}${id}\n`).join(""),
  });
}
