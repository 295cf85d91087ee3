/**
 * Every `.git` in the workspace, at any depth, kept read-only inside the sandbox (docs/tools.md,
 * "Nested repositories"): a hook written into `vendor/lib/.git/hooks` would run unsandboxed at
 * the user's next commit there. Found by a walk of the workspace before each sandboxed command,
 * bounded (past a bound the command is refused, never run with less protected), and cheap when
 * repeated: a folder whose change time is what it was at its last reading is not read again (a
 * `.git` cannot appear in a folder without changing it), only looked at.
 */
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { within } from "./policy.js";
import { SandboxRefusal } from "./refusal.js";

/** The walk looks at most at this many folders of the workspace; past it, nothing runs. */
const GIT_WALK_FOLDERS = 50_000;
/**
 * At most this many paths kept read-only: each is one more mount, and bubblewrap's cost per
 * mount grows with their number (about 0.3 s for 100 on these machines, 6 s for 1,000).
 */
const GIT_PROTECTED_PATHS = 256;
/** The walk gives the event loop back after this long. */
const SLICE_MS = 8;
/**
 * A folder changed within this long of its reading is read again next time, whatever its
 * change time says: some file systems keep timestamps that coarse, so a later change could
 * leave it equal.
 */
const COARSE_CLOCK_MS = 2_000;
/** How much of a `.git` file (or `commondir`) is read for the path it holds. */
const POINTER_BYTES = 4096;

type GitKind = "folder" | "file" | "link";

/** One folder as last read. */
interface Listing {
  dev: number;
  ino: number;
  ctimeMs: number;
  mtimeMs: number;
  /** Its timestamps are older than COARSE_CLOCK_MS at its reading: a change would show. */
  settled: boolean;
  subfolders: string[];
  git: GitKind | null;
}

interface GitWalkLimits {
  folders: number;
  protectedPaths: number;
}

const LIMITS: GitWalkLimits = { folders: GIT_WALK_FOLDERS, protectedPaths: GIT_PROTECTED_PATHS };

/** One workspace's finder, kept for the child's life (its memory of folders makes it cheap). */
export class GitDirFinder {
  private listings = new Map<string, Listing>();

  constructor(
    private readonly workspace: string,
    private readonly limits: GitWalkLimits = LIMITS,
  ) {}

  /**
   * The canonical paths to keep read-only, outermost first: each `.git` folder or file, what a
   * `.git` file or link points to inside the workspace (a submodule's or worktree's git folder
   * and its common folder), and any folder the walk could not read (it may hold one). Refuses
   * (SandboxRefusal) past the bounds; throws the signal's reason once it is aborted.
   */
  async find(signal?: AbortSignal): Promise<string[]> {
    const seen = new Map<string, Listing>();
    const found = new Set<string>();
    const queue = [this.workspace];
    let folders = 0;
    let sliceStart = performance.now();
    while (queue.length > 0) {
      signal?.throwIfAborted();
      const folder = queue.pop() as string;
      folders += 1;
      if (folders > this.limits.folders) throw new SandboxRefusal(tooManyFolders(this.limits));
      const listing = this.list(folder);
      if (listing === "gone") continue;
      if (listing === "unreadable") {
        found.add(folder);
        continue;
      }
      seen.set(folder, listing);
      if (listing.git) for (const path of this.protectedBy(folder, listing.git)) found.add(path);
      for (const name of listing.subfolders) queue.push(join(folder, name));
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
    signal?.throwIfAborted();
    this.listings = seen;
    const paths = outermost([...found]);
    if (paths.length > this.limits.protectedPaths)
      throw new SandboxRefusal(tooManyRepositories(this.limits));
    return paths;
  }

  /** The folder's listing: the remembered one while its timestamps say it is unchanged. */
  private list(folder: string): Listing | "gone" | "unreadable" {
    let stat: Stats;
    try {
      stat = lstatSync(folder);
    } catch {
      return "gone";
    }
    if (!stat.isDirectory()) return "gone";
    const known = this.listings.get(folder);
    if (known?.settled && unchanged(known, stat)) return known;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "ENOTDIR" ? "gone" : "unreadable";
    }
    const subfolders: string[] = [];
    let git: GitKind | null = null;
    for (const entry of entries) {
      // A `.git` is protected whole, never walked into; symlinked folders are not followed
      // (their target is walked where it lies, or is outside and read-only anyway).
      if (entry.name === ".git") git = gitKind(entry);
      else if (entry.isDirectory()) subfolders.push(entry.name);
    }
    return {
      dev: stat.dev,
      ino: stat.ino,
      ctimeMs: stat.ctimeMs,
      mtimeMs: stat.mtimeMs,
      settled: Math.max(stat.ctimeMs, stat.mtimeMs) < Date.now() - COARSE_CLOCK_MS,
      subfolders,
      git,
    };
  }

  /** What the `.git` in `folder` makes read-only (its pointers are read again each walk). */
  private protectedBy(folder: string, kind: GitKind): string[] {
    const path = join(folder, ".git");
    if (kind === "folder") return [path];
    // A link cannot be mounted over (the mount would land on its target): its target is kept,
    // when in the workspace; outside, it is read-only already.
    const pointed = kind === "file" ? pointer(path, "gitdir: ") : canonical(path);
    const paths = kind === "file" ? [path] : [];
    if (pointed === null || !within(pointed, this.workspace)) return paths;
    paths.push(pointed);
    // A worktree's git folder names the repository's own (hooks, config) in `commondir`.
    const common = pointer(join(pointed, "commondir"), "");
    if (common !== null && within(common, this.workspace)) paths.push(common);
    return paths;
  }
}

/** `paths` without any that lies inside another, sorted. */
export function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  for (const path of sorted) {
    const last = kept.at(-1);
    if (last === undefined || !(path === last || path.startsWith(last === sep ? sep : last + sep)))
      kept.push(path);
  }
  return kept;
}

function unchanged(known: Listing, stat: Stats): boolean {
  return (
    known.dev === stat.dev &&
    known.ino === stat.ino &&
    known.ctimeMs === stat.ctimeMs &&
    known.mtimeMs === stat.mtimeMs
  );
}

function gitKind(entry: Dirent): GitKind | null {
  if (entry.isDirectory()) return "folder";
  if (entry.isFile()) return "file";
  if (entry.isSymbolicLink()) return "link";
  return null;
}

/**
 * The canonical path a small file holds after `prefix` on its first line (a `.git` file's
 * `gitdir: ...`, a git folder's `commondir`), relative to the file's folder; null when there
 * is none. Opened without following a link or waiting on a FIFO swapped in.
 */
function pointer(file: string, prefix: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(POINTER_BYTES);
    const length = readSync(fd, buffer, 0, POINTER_BYTES, 0);
    const line = buffer.subarray(0, length).toString("utf8").split("\n")[0]?.trim() ?? "";
    if (!line.startsWith(prefix) || line.length === prefix.length) return null;
    return canonical(resolve(dirname(file), line.slice(prefix.length).trim()));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function canonical(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

const ESCALATE =
  'If the command must run, call shell again with "sandbox": false, which asks the user first.';

function tooManyFolders(limits: GitWalkLimits): string {
  return (
    `The sandbox did not run the command: the workspace has more than ${limits.folders} ` +
    "folders, too many to find every .git in, which must stay read-only. " +
    ESCALATE
  );
}

function tooManyRepositories(limits: GitWalkLimits): string {
  return (
    `The sandbox did not run the command: the workspace holds more than ${limits.protectedPaths} ` +
    ".git (nested repositories) to keep read-only. " +
    ESCALATE
  );
}
