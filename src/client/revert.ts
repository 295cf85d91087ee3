import type { ResultOf } from "../protocol/methods.js";
import type { RevertFile, TurnRevertParams } from "../protocol/schemas/checkpoints.js";
import type { Caller } from "./caller.js";
import type { CallOptions } from "./connection.js";

export interface RevertOptions extends CallOptions {
  /** Only say what would change (with a diff per file); nothing is written. */
  dryRun?: boolean;
  /** Revert even though files changed since the session's last turn ended. */
  force?: boolean;
}

type RevertResult = ResultOf<"turn.revert">;

/** One turn.revert call: a revert, or the first page of a dry run. */
export function revertTurn(
  client: Caller,
  sessionId: string,
  turnId: string,
  options: RevertOptions & { cursor?: string },
): Promise<RevertResult> {
  const { dryRun, force, cursor, ...call } = options;
  const params: TurnRevertParams = { session_id: sessionId, turn_id: turnId };
  if (dryRun) params.dry_run = true;
  if (force) params.force = true;
  if (cursor) params.cursor = cursor;
  return client.call("turn.revert", params, call);
}

/**
 * A whole dry run: every page, followed by its cursor, merged into one result whose `files`
 * holds them all (at most `maxFiles`, default 10,000; `files_total` still counts every one).
 */
export async function previewRevert(
  client: Caller,
  sessionId: string,
  turnId: string,
  options: Omit<RevertOptions, "dryRun"> & { maxFiles?: number } = {},
): Promise<RevertResult> {
  const { maxFiles = 10_000, ...rest } = options;
  const first = await revertTurn(client, sessionId, turnId, { ...rest, dryRun: true });
  const files: RevertFile[] = [...first.files];
  let cursor = first.cursor;
  while (cursor !== null && files.length < maxFiles) {
    const page = await revertTurn(client, sessionId, turnId, { ...rest, dryRun: true, cursor });
    files.push(...page.files);
    cursor = page.cursor;
  }
  return { ...first, files: files.slice(0, maxFiles), cursor: null };
}
