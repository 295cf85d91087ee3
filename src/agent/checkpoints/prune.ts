/**
 * Pruning of old checkpoints (docs/checkpoints.md, "Pruning"): bounded and occasional, never
 * on a turn's latency path. A checkpoint's ref is deleted when it is older than `maxAgeMs`
 * (except the `keepNewest` newest of the workspace, so that a workspace left alone for months
 * can still undo its last turns) or when it is past the `maxRefs` newest whatever its age; the
 * checkpoint a revert journal names (a revert to finish) is always kept. When refs went, `git gc`
 * drops what no ref, nor the shared index, reaches any more, with a grace period for objects a
 * checkpoint in flight in another child has written but not referenced yet.
 */
import { readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ShadowRepo } from "./shadow-repo.js";

interface PrunePolicy {
  maxAgeMs: number;
  keepNewest: number;
  maxRefs: number;
  /** At most one pruning per this long per workspace (a stamp file in the shadow repo). */
  everyMs: number;
  /** `git gc --prune=<grace>`: loose objects younger than this stay. */
  gcGrace: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const PRUNE_POLICY: PrunePolicy = {
  maxAgeMs: 30 * DAY_MS,
  keepNewest: 50,
  maxRefs: 2000,
  everyMs: DAY_MS,
  gcGrace: "1.hour.ago",
};

/** gc repacks the whole shadow repository: a longer bound than one ordinary git call. */
const GC_TIMEOUT_MS = 300_000;
const REF_PREFIX = "refs/mc/checkpoints/";

export interface CheckpointRef {
  /** The checkpoint ID (`c-…`). */
  id: string;
  /** Its commit's time, ms since the epoch. */
  time: number;
}

/** Which checkpoints the policy drops (pure): newest first, ties by ID. */
export function toPrune(
  refs: readonly CheckpointRef[],
  keep: ReadonlySet<string>,
  policy: Pick<PrunePolicy, "maxAgeMs" | "keepNewest" | "maxRefs">,
  now: number,
): string[] {
  const newestFirst = [...refs].sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : -1));
  return newestFirst
    .filter((ref, rank) => {
      if (keep.has(ref.id) || rank < policy.keepNewest) return false;
      return rank >= policy.maxRefs || now - ref.time > policy.maxAgeMs;
    })
    .map((ref) => ref.id);
}

/**
 * Whether a pruning is due (none within `everyMs`), and if so the stamp, written at once: two
 * children finishing turns together do not both prune. Cheap (two `stat`s and a write), so
 * that the turn can await it and its end leaves no later write behind.
 */
export async function claimPruning(
  repo: ShadowRepo,
  policy: Pick<PrunePolicy, "everyMs">,
  now = Date.now(),
): Promise<boolean> {
  const stamp = join(repo.dir, "prune-stamp");
  const last = await stat(stamp).catch(() => null);
  if (last && now - last.mtimeMs < policy.everyMs) return false;
  if (!(await stat(join(repo.dir, "HEAD")).catch(() => null))) return false;
  await writeFile(stamp, "");
  await utimes(stamp, now / 1000, now / 1000);
  return true;
}

/** The pruning itself, once claimed: how many refs went. */
export async function pruneClaimed(
  repo: ShadowRepo,
  policy: PrunePolicy,
  signal: AbortSignal,
  now = Date.now(),
): Promise<number> {
  const out = await repo.git(
    ["for-each-ref", "--format=%(refname) %(committerdate:unix)", REF_PREFIX],
    { signal },
  );
  const refs: CheckpointRef[] = [];
  for (const line of out.toString("utf8").split("\n")) {
    const [name, seconds] = line.split(" ");
    if (name?.startsWith(REF_PREFIX) && seconds)
      refs.push({ id: name.slice(REF_PREFIX.length), time: Number(seconds) * 1000 });
  }
  const doomed = toPrune(refs, await journaled(repo), policy, now);
  if (doomed.length === 0) return 0;
  await repo.git(["update-ref", "--stdin"], {
    signal,
    input: doomed.map((id) => `delete ${REF_PREFIX}${id}\n`).join(""),
  });
  // Refs stay loose: packing them would take `packed-refs.lock`, which a turn's checkpoint in
  // another child may need that moment (its `update-ref` would fail).
  await repo.git(["gc", "--quiet", `--prune=${policy.gcGrace}`], {
    signal,
    timeoutMs: GC_TIMEOUT_MS,
    config: ["gc.packRefs=false"],
  });
  return doomed.length;
}

/** The checkpoints the revert journals of this repository name (reverts to finish). */
async function journaled(repo: ShadowRepo): Promise<Set<string>> {
  const keep = new Set<string>();
  const folder = join(repo.dir, "reverts");
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    try {
      const journal = JSON.parse(await readFile(join(folder, name), "utf8")) as {
        checkpoint?: unknown;
      };
      if (typeof journal.checkpoint === "string") keep.add(journal.checkpoint);
    } catch {
      // Torn or unreadable: it names nothing we can keep; the revert reads it the same way.
    }
  }
  return keep;
}
