/**
 * One page of a revert's file list (docs/checkpoints.md, "Dry runs"): the whole result frame
 * within `page_bytes`. A dry run's entries carry a unified diff from the file now to the file
 * restored; a diff that cannot fit even an empty page is cut (`truncated`). The cursor names
 * the next entry and the workspace state it was computed from: a changed workspace makes it
 * `stale_revision`.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { ProtocolError } from "../../protocol/codes.js";
import { jsonBytes } from "../../protocol/raw-json.js";
import type { RevertFile, TurnRevertParams } from "../../protocol/schemas/checkpoints.js";
import type { PlannedPath, RevertPlan } from "./plan.js";
import { shown } from "./raw-paths.js";
import type { ShadowRepo } from "./shadow-repo.js";

/** The frame around the files: IDs, counts, the longest cursor, the response envelope. */
const ENVELOPE_BYTES = 640;
const CUT_LINE = "[... cut to fit the page]\n";
const DIFF_TIMEOUT_MS = 2000;
const BATCH = 16;

/** What a page is cut from: the planned paths, and the workspace tree they were planned on. */
interface PagedRevert {
  plan: RevertPlan;
  nowTree: string;
}

export async function pageFiles(
  repo: ShadowRepo,
  prepared: PagedRevert,
  params: TurnRevertParams,
  pageBytes: number,
): Promise<{ files: RevertFile[]; cursor: string | null }> {
  const paths = prepared.plan.paths;
  const start = params.dry_run ? startOf(params.cursor, prepared.nowTree) : 0;
  const files: RevertFile[] = [];
  let used = ENVELOPE_BYTES;
  for (let at = start; at < paths.length; at += BATCH) {
    const batch = paths.slice(at, at + BATCH);
    const entries = params.dry_run ? await withDiffs(repo, batch) : batch.map(plain);
    for (const [offset, entry] of entries.entries()) {
      const budget = pageBytes - used - (files.length > 0 ? 1 : 0);
      const fitted = files.length === 0 ? fit(entry, budget) : entry;
      if (jsonBytes(fitted) > budget) {
        const next = at + offset;
        return { files, cursor: params.dry_run ? `r.${next}.${prepared.nowTree}` : null };
      }
      files.push(fitted);
      used += jsonBytes(fitted) + (files.length > 1 ? 1 : 0);
    }
  }
  return { files, cursor: null };
}

function startOf(cursor: string | undefined, nowTree: string): number {
  if (cursor === undefined) return 0;
  const match = /^r\.(\d{1,9})\.([0-9a-f]{40,64})$/.exec(cursor);
  if (!match) throw new ProtocolError("invalid_params", "That cursor is not a turn.revert cursor.");
  if (match[2] !== nowTree) throw new ProtocolError("stale_revision");
  return Number(match[1]);
}

function plain(path: PlannedPath): RevertFile {
  return {
    path: shown(path.path),
    change: path.change,
    changed_outside: path.changedOutside,
    diff: null,
    truncated: false,
  };
}

async function withDiffs(repo: ShadowRepo, batch: PlannedPath[]): Promise<RevertFile[]> {
  const objects = batch.flatMap((p) => [p.now?.object, p.target?.object]).filter(isString);
  const blobs = await repo.blobs(objects);
  return batch.map((path) => {
    const entry = plain(path);
    if (path.change === "kept" || path.change === "skipped") return entry;
    const before = path.now ? blobs.get(path.now.object) : undefined;
    const after = path.target ? blobs.get(path.target.object) : undefined;
    if ((before && isBinary(before)) || (after && isBinary(after)))
      return { ...entry, truncated: true };
    const patch = createTwoFilesPatch(
      before === undefined ? "/dev/null" : `a/${shown(path.path)}`,
      after === undefined ? "/dev/null" : `b/${shown(path.path)}`,
      before?.toString("utf8") ?? "",
      after?.toString("utf8") ?? "",
      undefined,
      undefined,
      { context: 3, timeout: DIFF_TIMEOUT_MS, headerOptions: FILE_HEADERS_ONLY },
    );
    const modes = path.now && path.target && path.now.mode !== path.target.mode;
    const head = modes ? `old mode ${path.now?.mode}\nnew mode ${path.target?.mode}\n` : "";
    return { ...entry, diff: head + (patch ?? "(diff too large to compute)\n") };
  });
}

/** The first entry of a page: its diff cut so that it fits, when it alone would not. */
function fit(entry: RevertFile, budget: number): RevertFile {
  if (jsonBytes(entry) <= budget || entry.diff === null) return entry;
  let keep = entry.diff.length;
  let cut: RevertFile = entry;
  while (keep > 0) {
    keep = Math.floor(keep / 2);
    let text = entry.diff.slice(0, keep);
    // Never half a surrogate pair.
    if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
    cut = { ...entry, diff: `${text}\n${CUT_LINE}`, truncated: true };
    if (jsonBytes(cut) <= budget) return cut;
  }
  return { ...entry, diff: null, truncated: true };
}

function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

function isString(value: string | undefined): value is string {
  return typeof value === "string";
}
