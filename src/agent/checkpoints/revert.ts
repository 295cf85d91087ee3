/**
 * turn.revert (docs/checkpoints.md): the workspace back to the checkpoint before a turn. The
 * caller holds the session worker (and, to write, the session's lock); this computes the plan,
 * refuses or pages a dry run, and applies it in a crash-safe order:
 * a killed run's temp files (named by its journal) removed -> journal (the revert's intent and
 * its temp files' tag and folders, fsynced) -> files (restore.ts) -> `revert` record -> journal
 * removed. A retry after kill -9 finds the journal and finishes the job without asking again
 * whether the workspace changed (the half-applied revert changed it).
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import type { TurnRevertParams, TurnRevertResult } from "../../protocol/schemas/checkpoints.js";
import { writeFileAtomic } from "../../store/atomic-write.js";
import { hiddenIgnoreFiles, isIgnoreFile } from "./ignore-files.js";
import { planRevert, type RevertPlan } from "./plan.js";
import { applyPlan, newTempTag, removeTemps, tempDirsOf } from "./restore.js";
import { pageFiles } from "./revert-page.js";
import type { SessionTurns } from "./session-turns.js";
import type { ShadowRepo, Snapshot, TreeEntry } from "./shadow-repo.js";

export interface RevertInputs {
  repo: ShadowRepo;
  params: TurnRevertParams;
  turns: SessionTurns;
  /** The page bound of the result (the base's `page_bytes`). */
  pageBytes: number;
  /** operation.cancel, shutdown: observed until the first write, never after. */
  signal: AbortSignal;
}

interface PreparedRevert {
  plan: RevertPlan;
  checkpoint: string;
  turnsReverted: number;
  nowTree: string;
  resuming: boolean;
  /** The journal an earlier run of a revert of this session left (killed), if any. */
  journal: Journal | null;
}

/** Everything up to the first write: which checkpoint, the plan, the refusals. */
export async function prepareRevert(inputs: RevertInputs): Promise<PreparedRevert> {
  const { repo, params, turns } = inputs;
  const journal = await readJournal(repo, params.session_id);
  const resuming = journal?.turn_id === params.turn_id;
  const undone = resuming ? [] : turns.from(params.turn_id);
  if (!resuming && undone === null) throw new ProtocolError("turn_missing", TURN_MISSING);
  const checkpoint = resuming ? journal?.checkpoint : undone?.[0]?.checkpoints?.before;
  if (!checkpoint) throw new ProtocolError("checkpoint_missing");
  const target = await repo.resolve(checkpoint);
  if (!target) throw new ProtocolError("checkpoint_missing");
  const baselineId = turns.baseline();
  const baseline = baselineId ? await repo.resolve(baselineId) : null;
  const { plan, nowTree } = await planNow(
    repo,
    { ...target, entries: await repo.entries(target.tree) },
    baseline ? { ...baseline, entries: await repo.entries(baseline.tree) } : null,
    inputs.signal,
  );
  if (resuming) plan.workspaceChanged = false;
  if (inputs.signal.aborted) throw new ProtocolError("operation_cancelled");
  return {
    plan,
    checkpoint,
    turnsReverted: resuming ? (journal?.turns_reverted ?? 1) : (undone?.length ?? 1),
    nowTree,
    resuming,
    journal,
  };
}

type Entries = Map<string, TreeEntry>;

/**
 * The plan against the workspace now: a snapshot, and the ignore files that hide themselves
 * (ignore-files.ts) as the snapshot could not see them.
 */
async function planNow(
  repo: ShadowRepo,
  target: Snapshot & { entries: Entries },
  baseline: (Snapshot & { entries: Entries }) | null,
  signal?: AbortSignal,
): Promise<{ plan: RevertPlan; nowTree: string }> {
  const now = await repo.snapshot(signal);
  const entries = await repo.entries(now.tree);
  for (const [path, entry] of await hiddenIgnoreFiles(repo, signal))
    if (!entries.has(path)) entries.set(path, entry);
  return { plan: planRevert({ target, now: { ...now, entries }, baseline }), nowTree: now.tree };
}

/** At most this many passes after the first: one per level of nested ignore files, in practice. */
const IGNORE_PASSES = 8;

/**
 * A revert that changed an ignore file looks again: files the turn's ignore rules hid (a `*`
 * it wrote hides the files it made) show under the restored rules, and are reverted too. Their
 * entries join the result, so it never says `reverted` of a workspace that still holds them.
 */
async function afterIgnoreFiles(
  repo: ShadowRepo,
  prepared: PreparedRevert,
  tag: string,
  beforeWrite: (plan: RevertPlan) => Promise<void>,
): Promise<void> {
  const touchesIgnore = (plan: RevertPlan) =>
    plan.paths.some((p) => isIgnoreFile(p.path) && p.change !== "kept" && p.change !== "skipped");
  let last = prepared.plan;
  for (let pass = 0; pass < IGNORE_PASSES && touchesIgnore(last); pass++) {
    const target = await repo.resolve(prepared.checkpoint);
    if (!target) return;
    const { plan } = await planNow(
      repo,
      { ...target, entries: await repo.entries(target.tree) },
      null,
    );
    await beforeWrite(plan);
    await applyPlan(repo, plan, tag);
    const known = new Set(prepared.plan.paths.map((p) => p.path));
    const fresh = plan.paths.filter((p) => !known.has(p.path) && p.change !== "kept");
    prepared.plan.paths = [...prepared.plan.paths, ...fresh].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );
    last = plan;
  }
}

/** A dry run's page: the files with their diffs, from the cursor on. */
export async function dryRun(
  inputs: RevertInputs,
  prepared: PreparedRevert,
): Promise<TurnRevertResult> {
  const { files, cursor } = await pageFiles(inputs.repo, prepared, inputs.params, inputs.pageBytes);
  return resultOf(inputs.params, prepared, "dry_run", files, cursor);
}

/**
 * The revert itself, past the point of no return: journal, files, the `revert` record (by
 * `appendRecord`, fsynced), journal removed. Not cancellable: it completes.
 */
export async function applyRevert(
  inputs: RevertInputs,
  prepared: PreparedRevert,
  appendRecord: (checkpoint: string, turnsReverted: number) => Promise<void>,
): Promise<TurnRevertResult> {
  const { repo, params } = inputs;
  if (inputs.signal.aborted) throw new ProtocolError("operation_cancelled");
  const journalPath = journalOf(repo, params.session_id);
  // A killed run's temp files first, while its journal still names them (a kill here: the
  // next run does it again).
  const earlier = prepared.journal;
  if (
    typeof earlier?.temp_tag === "string" &&
    /^[0-9a-f]{16}$/.test(earlier.temp_tag) &&
    Array.isArray(earlier.temp_dirs)
  )
    await removeTemps(
      repo.workspace,
      earlier.temp_tag,
      earlier.temp_dirs.filter((dir): dir is string => typeof dir === "string"),
    );
  const journal: Journal = {
    session_id: params.session_id,
    turn_id: params.turn_id,
    checkpoint: prepared.checkpoint,
    turns_reverted: prepared.turnsReverted,
    temp_tag: newTempTag(),
    temp_dirs: tempDirsOf(prepared.plan),
  };
  await writeFileAtomic(journalPath, Buffer.from(`${JSON.stringify(journal)}\n`));
  await applyPlan(repo, prepared.plan, journal.temp_tag as string);
  await afterIgnoreFiles(repo, prepared, journal.temp_tag as string, async (plan) => {
    // This pass's temp folders join the journal first, so that a kill mid-pass leaves none.
    const dirs = new Set([...(journal.temp_dirs ?? []), ...tempDirsOf(plan)]);
    if (dirs.size === journal.temp_dirs?.length) return;
    journal.temp_dirs = [...dirs].sort();
    await writeFileAtomic(journalPath, Buffer.from(`${JSON.stringify(journal)}\n`));
  });
  if (!prepared.resuming || inputs.turns.from(params.turn_id) !== null)
    await appendRecord(prepared.checkpoint, prepared.turnsReverted);
  await rm(journalPath, { force: true });
  const { files } = await pageFiles(
    repo,
    prepared,
    { ...params, dry_run: false },
    inputs.pageBytes,
  );
  return resultOf(params, prepared, "reverted", files, null);
}

function resultOf(
  params: TurnRevertParams,
  prepared: PreparedRevert,
  state: "dry_run" | "reverted",
  files: TurnRevertResult["files"],
  cursor: string | null,
): TurnRevertResult {
  return {
    session_id: params.session_id,
    turn_id: params.turn_id,
    state,
    checkpoint: { id: prepared.checkpoint },
    turns_reverted: prepared.turnsReverted,
    workspace_changed: prepared.plan.workspaceChanged,
    files_total: prepared.plan.paths.length,
    files,
    cursor,
  };
}

interface Journal {
  session_id: string;
  turn_id: string;
  checkpoint: string;
  turns_reverted: number;
  /** The tag of this run's temp file names, and the folders it makes them in (restore.ts). */
  temp_tag?: string;
  temp_dirs?: string[];
}

function journalOf(repo: ShadowRepo, sessionId: string): string {
  return join(repo.dir, "reverts", `${sessionId}.json`);
}

async function readJournal(repo: ShadowRepo, sessionId: string): Promise<Journal | null> {
  try {
    const value = JSON.parse(await readFile(journalOf(repo, sessionId), "utf8")) as Journal;
    return typeof value.turn_id === "string" && typeof value.checkpoint === "string" ? value : null;
  } catch {
    return null;
  }
}

const TURN_MISSING = "No turn of that session has that ID, or it was already reverted.";
