import { realpathSync } from "node:fs";
import { isAbsolute, posix } from "node:path";

/**
 * The cwd rule's comparison: a recorded cwd matches when it resolves to the child's canonical
 * cwd. Resolution is `realpath` when the path exists (so a symlinked spelling of the workspace
 * matches), else lexical normalisation. Results are memoised per distinct string, so a history
 * whose 10,000 records repeat one cwd costs one resolution. The memo is small and per operation
 * (a listing, a scan, an open): symlinks may change between operations.
 */
const MEMO_ENTRIES = 16;
/** Longer strings are not memoised (no real path is that long), keeping the memo's memory small. */
const MEMO_KEY_CHARS = 4096;

export class CwdMatcher {
  private readonly memo = new Map<string, boolean>();
  /** How many resolutions ran (for tests of the memo). */
  resolutions = 0;

  /** The last recorded cwd and its verdict: a history repeats one cwd record after record. */
  private last: string | null = null;
  private lastMatches = false;

  constructor(private readonly canonicalCwd: string) {}

  matches(recorded: string): boolean {
    // Comparing with the previous string is cheaper than hashing a fresh one for the memo.
    if (recorded === this.last) return this.lastMatches;
    const verdict = this.lookup(recorded);
    if (recorded.length <= MEMO_KEY_CHARS) {
      this.last = recorded;
      this.lastMatches = verdict;
    }
    return verdict;
  }

  private lookup(recorded: string): boolean {
    const known = this.memo.get(recorded);
    if (known !== undefined) return known;
    this.resolutions += 1;
    const result = canonicalise(recorded) === this.canonicalCwd;
    if (recorded.length <= MEMO_KEY_CHARS) {
      if (this.memo.size >= MEMO_ENTRIES) this.memo.clear();
      this.memo.set(recorded, result);
    }
    return result;
  }
}

/** realpath when it exists; else lexical normalisation. Relative paths are never resolved. */
function canonicalise(recorded: string): string {
  if (isAbsolute(recorded) && !recorded.includes("\u0000")) {
    try {
      return realpathSync.native(recorded);
    } catch {}
  }
  const normal = posix.normalize(recorded);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}
