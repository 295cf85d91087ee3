import { createHash } from "node:crypto";

/**
 * The name of a workspace's rules file under `MC_HOME/rules/`, as docs/store.md states it: the
 * first 32 hex digits of the SHA-256 of the canonical workspace path (UTF-8), then `.json`.
 * Restated here, so that a test finds the file where the documented format says it is.
 */
export function rulesFileName(workspace: string): string {
  return `${createHash("sha256").update(workspace).digest("hex").slice(0, 32)}.json`;
}
