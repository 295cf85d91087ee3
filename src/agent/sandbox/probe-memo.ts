/**
 * The probe memo (docs/tools.md, "Found out once per child"; docs/store.md, "The sandbox probe
 * memo"): what the last real probe of the sandbox found, kept in `sandbox-probe.json` of this
 * user's private cache folder (`<tmpdir>/mc-agent-<uid>`, src/boot/compile-cache.ts
 * `privateCacheRoot`, beside the code caches; never in MC_HOME, which an `initialize` leaves
 * as it was) with everything its outcome depends on (probe-memo-key.ts), so that the starter can answer an
 * `initialize` negotiating `turn` without waiting for the probe's run. It only ever names the
 * sandbox the answer reports: every command runs in the real sandbox, which the real probe,
 * still run at every start, finds out, so a wrong memo never runs anything unsandboxed.
 * Anything unexpected in the file (not a regular file, over PROBE_MEMO_BYTES, not this format,
 * another key) is a miss, never an error.
 */
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { processExists } from "../../store/process-exists.js";
import { errorCode, readRegularFileSync } from "../../store/safe-read.js";
import { WORKSPACE_MARK } from "./marked-paths.js";
import type { SandboxKind } from "./probe.js";
import type { ProbeMemoKey } from "./probe-memo-key.js";

/** The memo's bound: an entry is a kilobyte or two (the runs' arguments are most of it). */
export const PROBE_MEMO_BYTES = 64 * 1024;
/**
 * Entries kept, the latest used first: one per kind of workspace (its mount, where it lies among
 * the run's mounts, what its arguments are), or per workspace where the key names its path
 * (probe-memo-key.ts). An entry used again is put first, so the ones a user comes back to stay.
 */
export const PROBE_MEMO_ENTRIES = 16;
const MEMO_NAME = "sandbox-probe.json";
const FORMAT = "mc-sandbox-probe-memo";
const VERSION = 1;
const KINDS: readonly (SandboxKind | null)[] = ["bubblewrap", "seatbelt", null];

/** What each run of the key found: the sandbox that started, or null (one per network setting). */
export type MemoKinds = (SandboxKind | null)[];

interface MemoEntry {
  key: unknown;
  sandbox: unknown;
}

/** The memo's file in `folder` (the private cache folder). */
export function probeMemoPath(folder: string): string {
  return join(folder, MEMO_NAME);
}

/** The memo's finding for `key`, or null when it has none for this very key. */
export function readProbeMemo(folder: string, key: ProbeMemoKey): MemoKinds | null {
  return findProbeMemo(folder, key)?.kinds ?? null;
}

/** A memo entry found for a key: what it says, and whether it is the memo's first (latest). */
export interface MemoFound {
  kinds: MemoKinds;
  first: boolean;
}

/** The same, with whether the entry is first: one used again is put first (rememberProbes). */
export function findProbeMemo(folder: string, key: ProbeMemoKey): MemoFound | null {
  const wanted = JSON.stringify(key);
  const entries = readEntries(folder);
  const at = entries.findIndex((candidate) => JSON.stringify(candidate.key) === wanted);
  const kinds = entries[at]?.sandbox;
  if (!Array.isArray(kinds) || kinds.length !== key.runs.length) return null;
  if (!kinds.every((kind) => KINDS.includes(kind))) return null;
  return { kinds: kinds as MemoKinds, first: at === 0 };
}

/**
 * Whether the memo may hold an entry for runs in `workspace` (its text names it, or the mark
 * that stands for any workspace, as a run's folder), without parsing it or making a key: the
 * ACP starter's guess at whether the first engine will answer from the memo
 * (src/acp/starter.ts). A guess only: the key decides.
 */
export function memoMayName(folder: string, workspace: string): boolean {
  try {
    const read = readRegularFileSync(probeMemoPath(folder), PROBE_MEMO_BYTES);
    if (read.kind !== "bytes") return false;
    const names = (path: string) => read.bytes.includes(`"cwd":${JSON.stringify(path)}`);
    return names(WORKSPACE_MARK) || names(workspace);
  } catch {
    return false;
  }
}

/** The memo file's entries; none when it is missing, unsafe, over the bound or not this format. */
function readEntries(folder: string): MemoEntry[] {
  try {
    const read = readRegularFileSync(probeMemoPath(folder), PROBE_MEMO_BYTES);
    if (read.kind !== "bytes") return [];
    const memo = JSON.parse(read.bytes.toString("utf8")) as Record<string, unknown> | null;
    if (memo?.format !== FORMAT || memo.version !== VERSION || !Array.isArray(memo.entries))
      return [];
    return memo.entries.filter(
      (entry): entry is MemoEntry => typeof entry === "object" && entry !== null,
    );
  } catch {
    return [];
  }
}

/**
 * The memo's bytes with `key`'s entry first, then the other entries of `kept` (not `key`'s),
 * as many as fit PROBE_MEMO_ENTRIES and PROBE_MEMO_BYTES; null when `key`'s alone does not fit.
 */
export function probeMemoBytes(
  key: ProbeMemoKey,
  kinds: MemoKinds,
  kept: readonly MemoEntry[] = [],
): Buffer | null {
  const wanted = JSON.stringify(key);
  const others = kept.filter((entry) => JSON.stringify(entry.key) !== wanted);
  const entries = [{ key, sandbox: kinds }, ...others].slice(0, PROBE_MEMO_ENTRIES);
  for (; entries.length > 0; entries.pop()) {
    const body = JSON.stringify({ format: FORMAT, version: VERSION, entries });
    const bytes = Buffer.from(`${body}\n`, "utf8");
    if (bytes.length <= PROBE_MEMO_BYTES) return bytes;
    if (entries.length === 1) return null;
  }
  return null;
}

/**
 * Puts what the real probes of `key` found first in the memo, replacing it atomically: a temp
 * file `.sandbox-probe.json.<pid>.<12 hex>.tmp` (0600, never through a symlink), then a rename
 * over the memo, so a reader sees the old memo or the new one. Synchronous and without fsync,
 * as the verdict cache's files (docs/store.md): a memo needs atomic visibility, not durability
 * (one torn by a crash is a miss). It runs right after the starter's answer, not before it.
 * `folder` is made 0700 when missing (its parent never), never followed when a symlink. Best
 * effort: a memo that cannot be written only costs the next start its wait; two children writing at once may drop one's
 * entry, which its next start writes again.
 */
export function writeProbeMemo(folder: string, key: ProbeMemoKey, kinds: MemoKinds): void {
  const bytes = probeMemoBytes(key, kinds, readEntries(folder));
  if (bytes === null) return;
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if (errorCode(error) !== "EEXIST") return;
  }
  let temp: string | null = null;
  try {
    if (!lstatSync(folder).isDirectory()) return;
    temp = join(folder, `.${MEMO_NAME}.${process.pid}.${twelveHex()}.tmp`);
    const fd = openSync(temp, WRITE_FLAGS, 0o600);
    try {
      writeFileSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, join(folder, MEMO_NAME));
    temp = null;
    removeOrphans(folder);
  } catch {
    // A read-only or full folder: the memo stays as it was.
  } finally {
    if (temp !== null) rmSync(temp, { force: true });
  }
}

/**
 * The temp name's 12 hex digits, from Math.random: not node:crypto, whose load (3-8 ms) the
 * starter would pay before its answer. The pid and O_EXCL make the name this writer's alone.
 */
function twelveHex(): string {
  return Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, "0");
}
const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The memo's temp files left by writers that died before their rename (their pid is no live
 * process on this host), as the store's atomic writes sweep theirs (docs/store.md, "Orphaned
 * temp files"); a live writer's, and every other name, are left alone.
 */
function removeOrphans(folder: string): void {
  const prefix = `.${MEMO_NAME}.`;
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d{1,7})\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length));
    const pid = match ? Number(match[1]) : 0;
    if (pid > 0 && pid !== process.pid && !processExists(pid))
      rmSync(join(folder, name), { force: true });
  }
}
