import { lstatSync, mkdirSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Node's compile cache for the child's bundle (`node:module` `enableCompileCache`, Node 22.1
 * and later; Node 20 has none and loads the plain bundle). src/main.ts turns it on before
 * the bundle loads: V8 then reads the top-level code of dist/child's files from the cache
 * instead of compiling it (docs/benchmarks.md, "Start-up profile").
 *
 * Where: `<tmpdir>/mc-agent-<uid>/compile-cache/<node version>-<arch>`, made at the first run.
 * Not in dist (a global install is read-only, and the cache depends on the Node that runs it,
 * not the one that built) and not in MC_HOME (which holds the user's data only). A cache built
 * by one Node is never loaded by another: the folder is per version and architecture, and Node
 * itself keys each entry by its V8 version and flags and checks the source's hash and the
 * entry's checksum, compiling afresh (and rewriting it) on any mismatch. Compiled code is code:
 * the folder is used only when this user owns it and nobody else can write to it.
 * `MC_AGENT_COMPILE_CACHE=0` turns it off.
 */
export function enableChildCompileCache(env: NodeJS.ProcessEnv = process.env): string | null {
  const enable = (module as { enableCompileCache?: (dir: string) => { status: number } })
    .enableCompileCache;
  if (typeof enable !== "function" || env.MC_AGENT_COMPILE_CACHE === "0") return null;
  const dir = cacheDir();
  if (dir === null) return null;
  try {
    const { status } = enable(dir);
    const statuses = (module as { constants?: { compileCacheStatus?: Record<string, number> } })
      .constants?.compileCacheStatus;
    return status === statuses?.ENABLED || status === statuses?.ALREADY_ENABLED ? dir : null;
  } catch {
    return null;
  }
}

/** The cache folder, or null when its private root cannot be made or is not private. */
function cacheDir(): string | null {
  const root = privateCacheRoot();
  return root === null ? null : join(root, "compile-cache", `${process.version}-${process.arch}`);
}

/**
 * `<tmpdir>/mc-agent-<uid>`, made at the first run (0700), or null when it cannot be made or
 * is not a folder of this user's that nobody else can write to: it holds compiled code, Node's
 * (compile-cache/) and ours on Node 20 (code-cache/, src/boot/code-cache.ts).
 */
export function privateCacheRoot(): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  const root = join(tmpdir(), `mc-agent-${uid}`);
  try {
    mkdirSync(root, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return null;
  }
  try {
    const stat = lstatSync(root);
    if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o022) !== 0) return null;
  } catch {
    return null;
  }
  return root;
}
