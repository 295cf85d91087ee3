/**
 * The shadow git repository of one canonical workspace (docs/checkpoints.md): under
 * `MC_HOME/checkpoints/<key>/`, its own GIT_DIR and index, the workspace as work tree. The
 * workspace's own `.git` is never read or written (git skips every `.git` of a work tree, and
 * the environment names only the shadow one). A checkpoint is a commit of the workspace's tree
 * (tracked and untracked files, honouring `.gitignore`, modes and symlinks) with a ref of its
 * own; files over FILE_BYTES and nested repositories are left out and listed in its message.
 */
import { createHash, randomBytes } from "node:crypto";
import { link, lstat, mkdir, readdir, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type GitPlace, type GitRun, runGit } from "./git.js";
import { keptOut } from "./keep-out.js";
import { isIgnoreFile, leftOut } from "./left-out.js";
import { onDisk, rawBytes, rawOf, shown, splitZ, zJoin } from "./raw-paths.js";

export { FILE_BYTES } from "./left-out.js";

/** One git call's bound: past it the checkpoint fails (`timeout`). */
const GIT_TIMEOUT_MS = 60_000;

/**
 * What a checkpoint's commit message holds besides its tree. Paths are raw (raw-paths.ts): v2
 * stores them so; v1 (before names were bytes) stored UTF-8 text, read back as raw.
 */
interface SnapshotMeta {
  v: 2;
  /** Paths left out: files over FILE_BYTES, and nested repositories (`dir/`). */
  excluded: string[];
  /** Empty folders (git trees cannot hold them), `/`-terminated. */
  empty_dirs: string[];
}

export interface Snapshot {
  tree: string;
  meta: SnapshotMeta;
}

interface Checkpoint extends Snapshot {
  commit: string;
}

const REF_PREFIX = "refs/mc/checkpoints/";
const MESSAGE_HEAD = "mc-agent checkpoint\n\n";

function checkpointsRoot(home: string): string {
  return join(home, "checkpoints");
}

/** The shadow repository's folder: the first 32 hex digits of SHA-256 of the workspace path. */
function shadowDir(home: string, workspace: string): string {
  const key = createHash("sha256").update(workspace, "utf8").digest("hex").slice(0, 32);
  return join(checkpointsRoot(home), key);
}

interface ShadowOptions {
  home: string;
  /** The canonical workspace. */
  workspace: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /**
   * Raw workspace-relative paths never recorded and never touched (keep-out.ts: mc's stores
   * inside the workspace), whatever an older checkpoint holds.
   */
  keepOut?: readonly string[];
}

export class ShadowRepo {
  readonly dir: string;
  private ready: Promise<void> | null = null;
  /** The root `.gitignore`'s stat key when this child last added it to the shadow index. */
  private rootIgnoreAdded: string | null = null;

  constructor(private readonly options: ShadowOptions) {
    this.dir = shadowDir(options.home, options.workspace);
  }

  get workspace(): string {
    return this.options.workspace;
  }

  /** Whether a raw path is one a checkpoint never records and a revert never touches. */
  keptOut(path: string): boolean {
    return keptOut(path, this.options.keepOut ?? []);
  }

  /** `git <args>` against the shadow repository. */
  git(args: string[], extra: Partial<GitRun> & { indexFile?: string } = {}): Promise<Buffer> {
    const place: GitPlace = {
      gitDir: this.dir,
      workTree: this.options.workspace,
      indexFile: extra.indexFile ?? join(this.dir, "index"),
    };
    return runGit(place, args, {
      env: this.options.env,
      timeoutMs: this.options.timeoutMs ?? GIT_TIMEOUT_MS,
      ...extra,
    });
  }

  /** Creates the shadow repository once (in a temp folder renamed into place: race-safe). */
  ensure(signal?: AbortSignal): Promise<void> {
    this.ready ??= this.create(signal).catch((error) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private async create(signal?: AbortSignal): Promise<void> {
    if (await exists(join(this.dir, "HEAD"))) return;
    await mkdir(checkpointsRoot(this.options.home), { recursive: true, mode: 0o700 });
    const temp = `${this.dir}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const place = { gitDir: temp };
    const run = { env: this.options.env, timeoutMs: GIT_TIMEOUT_MS, ...(signal ? { signal } : {}) };
    try {
      await runGit(place, ["init", "-q", "--bare", "--template="], run);
      for (const [name, value] of [
        ["core.bare", "false"],
        ["core.logAllRefUpdates", "false"],
        ["gc.auto", "0"],
      ] as const)
        await runGit(place, ["config", name, value], run);
      await rename(temp, this.dir);
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      // Another child made it first: theirs is as good as ours.
      if (await exists(join(this.dir, "HEAD"))) return;
      throw error;
    }
  }

  /**
   * The workspace's state now, as a tree in the shadow repository's objects (no ref). Uses a
   * private name for the shadow index (a hard link: git replaces the file at that name by a
   * rename, never the shared one in place; its stat cache makes a warm snapshot cheap), renamed
   * back when done, so that two children snapshotting one workspace never meet on a lock.
   * One scan lists what may need a size check (tracked files whose stat changed, untracked
   * ones): a file the index holds unchanged was within the bound when it was added.
   */
  async snapshot(signal?: AbortSignal, background = false): Promise<Snapshot> {
    await this.ensure(signal);
    const rootIgnore = await this.ignoreFileReadable();
    const shared = join(this.dir, "index");
    const tag = `${process.pid}.${randomBytes(6).toString("hex")}`;
    const indexFile = `${shared}.${tag}`;
    const excludesFile = join(this.dir, `exclude.${tag}`);
    try {
      await link(shared, indexFile).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      const run = { indexFile, background, ...(signal ? { signal } : {}) };
      const keepOut = this.options.keepOut ?? [];
      // mc's own stores are excluded from the first scan on (exclude file below the workspace's
      // own rules: a `!` there could not bring them back, since nothing of them is tracked).
      const storeLines = keepOut.map(excludePattern).join("");
      await writeFile(excludesFile, rawBytes(storeLines));
      const config = [`core.excludesFile=${excludesFile}`];
      const listed = splitZ(
        await this.git(["ls-files", "-z", "-m", "-o", "--exclude-standard"], { ...run, config }),
      );
      // Tracked files a changed `.gitignore` now ignores leave the index (`add -A` keeps them).
      const ignored = listed.some((path) => path === ".gitignore" || path.endsWith("/.gitignore"))
        ? splitZ(
            await this.git(["ls-files", "-z", "-c", "-i", "--exclude-standard"], {
              ...run,
              config,
            }),
          )
        : [];
      // Never an ignore file itself, whatever it says (ignore-files.ts).
      const ignoredSet = new Set(ignored.filter((path) => !isIgnoreFile(path)));
      const { excluded, unexpressible } = await leftOut(
        this.options.workspace,
        listed.filter((path) => !ignoredSet.has(path)),
      );
      const drop = [...ignoredSet, ...excluded.map((p) => p.replace(/\/$/, ""))];
      if (drop.length > 0)
        await this.git(["update-index", "-z", "--force-remove", "--stdin"], {
          ...run,
          input: zJoin(drop),
        });
      await writeFile(excludesFile, rawBytes(storeLines + excluded.map(excludePattern).join("")));
      await this.git(["add", "-A"], { ...run, config });
      // The root `.gitignore` is recorded even when it ignores itself (`*`): `add -A` would skip
      // it, and with it the one change a revert must undo first. (Listed: `add -A` had it.)
      // Once added, a file unchanged since (the same stat) is still in the index: no call then.
      if (rootIgnore && rootIgnore !== this.rootIgnoreAdded && !listed.includes(".gitignore"))
        await this.git(["update-index", "--add", "--", ".gitignore"], run);
      // What the exclude file could not keep out: a store's files an older index tracked (they
      // stay tracked whatever the excludes say), names with a line break.
      const stores =
        keepOut.length > 0
          ? splitZ(
              await this.git(
                ["ls-files", "-z", "-c", "--", ...keepOut.map((p) => `:(literal,top)${shown(p)}`)],
                run,
              ),
            )
          : [];
      if (unexpressible.length > 0 || stores.length > 0)
        await this.git(["update-index", "-z", "--force-remove", "--stdin"], {
          ...run,
          input: zJoin([...unexpressible, ...stores]),
        });
      const [emptyOut, treeOut] = await Promise.all([
        this.git(["ls-files", "-z", "-o", "--directory", "--exclude-standard"], {
          ...run,
          config,
        }),
        this.git(["write-tree"], run),
      ]);
      const emptyDirs = (
        await this.foldersUnder(splitZ(emptyOut).filter((path) => path.endsWith("/")))
      ).filter((dir) => !this.keptOut(dir.replace(/\/$/, "")));
      await rename(indexFile, shared);
      this.rootIgnoreAdded = rootIgnore;
      return {
        tree: treeOut.toString("utf8").trim(),
        meta: { v: 2, excluded: excluded.sort(), empty_dirs: emptyDirs.sort() },
      };
    } finally {
      await unlink(indexFile).catch(() => {});
      await unlink(excludesFile).catch(() => {});
    }
  }

  /**
   * git opens the workspace's `.gitignore` blocking: a FIFO there would hold the checkpoint for
   * its whole bound, and the turn's first tool with it. Anything but a regular file (through a
   * link) fails the checkpoint at once instead. (A FIFO `.gitignore` deeper down still costs the
   * bound: docs/checkpoints.md.) When it is a regular file (not a link), recorded always: its
   * stat, as a key.
   */
  private async ignoreFileReadable(): Promise<string | null> {
    const found = await stat(join(this.options.workspace, ".gitignore")).catch(() => null);
    if (found && !found.isFile())
      throw new Error("the workspace's .gitignore is not a regular file");
    const entry = await lstat(join(this.options.workspace, ".gitignore")).catch(() => null);
    return entry?.isFile() ? `${entry.ino}:${entry.size}:${entry.mtimeMs}:${entry.ctimeMs}` : null;
  }

  /**
   * git lists an untracked folder holding only folders once (`a/` for `a/b/`): every folder
   * under each is recorded, so that each can be made again.
   */
  private async foldersUnder(listed: string[]): Promise<string[]> {
    const all: string[] = [];
    const walk = async (relative: string): Promise<void> => {
      all.push(relative);
      const names = await readdir(onDisk(this.options.workspace, relative), {
        withFileTypes: true,
        encoding: "buffer",
      }).catch(() => []);
      for (const entry of names) {
        const name = (entry.name as unknown as Buffer).toString("latin1");
        if (entry.isDirectory() && name !== ".git") await walk(`${relative}${name}/`);
      }
    };
    for (const dir of listed) await walk(dir);
    return all;
  }

  /**
   * Records the workspace as checkpoint `id`: a snapshot, its commit and its ref. `background`:
   * its git runs at a lower CPU priority (GitRun.background), for the checkpoint that runs beside
   * a turn's first model call.
   */
  async record(id: string, signal?: AbortSignal, background = false): Promise<Checkpoint> {
    const snap = await this.snapshot(signal, background);
    const extra = { background, ...(signal ? { signal } : {}) };
    const message = `${MESSAGE_HEAD}${JSON.stringify(snap.meta)}\n`;
    const commit = (
      await this.git(["commit-tree", snap.tree, "-F", "-"], { ...extra, input: message })
    )
      .toString("utf8")
      .trim();
    await this.git(["update-ref", `${REF_PREFIX}${id}`, commit], extra);
    return { ...snap, commit };
  }

  /** Checkpoint `id`, or null when the shadow repository has no such ref (or no longer). */
  async resolve(id: string): Promise<Checkpoint | null> {
    if (!(await exists(join(this.dir, "HEAD")))) return null;
    let text: string;
    try {
      text = (await this.git(["cat-file", "commit", `${REF_PREFIX}${id}`])).toString("utf8");
    } catch {
      return null;
    }
    const tree = /^tree ([0-9a-f]{40,64})$/m.exec(text)?.[1];
    const body = text.slice(text.indexOf("\n\n") + 2);
    if (!tree || !body.startsWith(MESSAGE_HEAD)) return null;
    try {
      const stored = JSON.parse(body.slice(MESSAGE_HEAD.length)) as Omit<SnapshotMeta, "v"> & {
        v: unknown;
      };
      if (
        (stored.v !== 1 && stored.v !== 2) ||
        !Array.isArray(stored.excluded) ||
        !Array.isArray(stored.empty_dirs)
      )
        return null;
      // A checkpoint taken before the stores were kept out may hold them: never touched.
      const raw = (names: string[]) =>
        (stored.v === 1 ? names.map(rawOf) : names).filter(
          (name) => !this.keptOut(name.replace(/\/$/, "")),
        );
      const meta: SnapshotMeta = {
        v: 2,
        excluded: raw(stored.excluded),
        empty_dirs: raw(stored.empty_dirs),
      };
      const commit = (await this.git(["rev-parse", `${REF_PREFIX}${id}`])).toString().trim();
      return { tree, meta, commit };
    } catch {
      return null;
    }
  }

  /** Every path of a tree, with its mode and object (`ls-tree -r`). */
  async entries(tree: string): Promise<Map<string, TreeEntry>> {
    const out = await this.git(["ls-tree", "-r", "-z", "--full-tree", tree]);
    const entries = new Map<string, TreeEntry>();
    for (const line of splitZ(out)) {
      const tab = line.indexOf("\t");
      const [mode, type, object] = line.slice(0, tab).split(" ");
      const path = line.slice(tab + 1);
      if (mode && type === "blob" && object && !this.keptOut(path))
        entries.set(path, { mode, object });
    }
    return entries;
  }

  /** The contents of blobs, by object ID (one `cat-file --batch` per call). */
  async blobs(objects: string[], signal?: AbortSignal): Promise<Map<string, Buffer>> {
    const unique = [...new Set(objects)];
    const found = new Map<string, Buffer>();
    if (unique.length === 0) return found;
    const out = await this.git(["cat-file", "--batch"], {
      input: `${unique.join("\n")}\n`,
      maxBytes: 2 * 1024 * 1024 * 1024 - 1,
      ...(signal ? { signal } : {}),
    });
    let at = 0;
    while (at < out.length) {
      const end = out.indexOf(10, at);
      const header = out.subarray(at, end).toString("utf8").split(" ");
      const size = Number(header[2]);
      if (header[1] === undefined || Number.isNaN(size)) break;
      found.set(header[0] as string, out.subarray(end + 1, end + 1 + size));
      at = end + 1 + size + 1;
    }
    return found;
  }
}

export interface TreeEntry {
  /** `100644`, `100755` or `120000` (a symlink). */
  mode: string;
  object: string;
}

/** An exclude line matching exactly this path from the work tree's root. */
function excludePattern(path: string): string {
  if (/[\n\r]/.test(path)) return "";
  const escaped = path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, "\\ ");
  return `/${escaped}\n`;
}

async function exists(path: string | Buffer): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
