/**
 * The probe memo (docs/tools.md, "Found out once per child"; docs/store.md, "The sandbox probe
 * memo"): what the last real probe of the sandbox found, kept in MC_HOME/cache/sandbox-probe.json
 * with everything its outcome depends on (probe-memo-key.ts), so that the starter can answer an
 * `initialize` negotiating `turn` without waiting for the probe's run. It only ever names the
 * sandbox the answer reports: every command runs in the real sandbox, which the real probe,
 * still run at every start, finds out, so a wrong memo never runs anything unsandboxed.
 * Anything unexpected in the file (not a regular file, over PROBE_MEMO_BYTES, not this format,
 * another key) is a miss, never an error.
 */
import { join } from "node:path";
import { readRegularFileSync } from "../../store/safe-read.js";
import type { SandboxKind } from "./probe.js";
import type { ProbeMemoKey } from "./probe-memo-key.js";

/** The memo's bound: an entry is a kilobyte or two (the runs' arguments are most of it). */
export const PROBE_MEMO_BYTES = 64 * 1024;
/** Entries kept, the latest first: one per workspace (its path is in the runs' arguments). */
export const PROBE_MEMO_ENTRIES = 16;
const FORMAT = "mc-sandbox-probe-memo";
const VERSION = 1;
const KINDS: readonly (SandboxKind | null)[] = ["bubblewrap", "seatbelt", null];

/** What each run of the key found: the sandbox that started, or null (one per network setting). */
export type MemoKinds = (SandboxKind | null)[];

interface MemoEntry {
  key: unknown;
  sandbox: unknown;
}

export function probeMemoPath(home: string): string {
  return join(home, "cache", "sandbox-probe.json");
}

/** The memo's finding for `key`, or null when it has none for this very key. */
export function readProbeMemo(home: string, key: ProbeMemoKey): MemoKinds | null {
  const wanted = JSON.stringify(key);
  const entry = readEntries(home).find((candidate) => JSON.stringify(candidate.key) === wanted);
  const kinds = entry?.sandbox;
  if (!Array.isArray(kinds) || kinds.length !== key.runs.length) return null;
  return kinds.every((kind) => KINDS.includes(kind)) ? (kinds as MemoKinds) : null;
}

/** The memo file's entries; none when it is missing, unsafe, over the bound or not this format. */
function readEntries(home: string): MemoEntry[] {
  try {
    const read = readRegularFileSync(probeMemoPath(home), PROBE_MEMO_BYTES);
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
 * Puts what the real probes of `key` found first in the memo, replacing it atomically
 * (store/atomic-write.ts; the `cache` folder made 0700 if missing, MC_HOME never made). Best
 * effort: a memo that cannot be written only costs the next start its wait; two children
 * writing at once may drop one's entry, which its next start writes again.
 */
export async function writeProbeMemo(
  home: string,
  key: ProbeMemoKey,
  kinds: MemoKinds,
): Promise<void> {
  const bytes = probeMemoBytes(key, kinds, readEntries(home));
  if (bytes === null) return;
  try {
    // Loaded only now, after the answer: the starter requires this module before answering.
    const { lstat, mkdir } = await import("node:fs/promises");
    const { writeFileAtomicIn } = await import("../../store/atomic-write.js");
    const folder = join(home, "cache");
    await mkdir(folder, { mode: 0o700 }).catch((error) => {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    });
    // Never through a symlink: the memo is written in MC_HOME's own `cache` folder or not at all.
    if (!(await lstat(folder)).isDirectory()) return;
    await writeFileAtomicIn(folder, "sandbox-probe.json", bytes);
  } catch {
    // A read-only or missing MC_HOME: the memo stays as it was.
  }
}
