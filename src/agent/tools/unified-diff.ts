/**
 * The unified diff an edit shows in its approval and its `tool_done` event, made by the `diff`
 * package (git-style `a/` and `b/` names, `/dev/null` for a new file, 3 lines of context).
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";

/** Bounds the diff's computation on huge rewrites; the edit itself is never held back by it. */
const DIFF_TIMEOUT_MS = 2000;

export function unifiedDiff(relative: string, before: string | null, after: string): string {
  const patch = createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${relative}`,
    `b/${relative}`,
    before ?? "",
    after,
    undefined,
    undefined,
    { context: 3, timeout: DIFF_TIMEOUT_MS, headerOptions: FILE_HEADERS_ONLY },
  );
  return patch ?? `--- a/${relative}\n+++ b/${relative}\n(diff too large to compute)\n`;
}

/** "+3 -1": the counts a summary line shows. */
export function diffStat(diff: string): string {
  let added = 0;
  let removed = 0;
  let inHunks = false;
  for (const line of diff.split("\n")) {
    // The `---`/`+++` file headers come before the first hunk; after it they are content.
    if (line.startsWith("@@")) inHunks = true;
    else if (inHunks && line.startsWith("+")) added++;
    else if (inHunks && line.startsWith("-")) removed++;
  }
  return `+${added} -${removed}`;
}
