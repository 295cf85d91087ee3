import { lstatSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, sep } from "node:path";
import { verdictCacheRoot } from "../../store/cache-root.js";
import { realish } from "../../store/realish-path.js";
import { type HomeIdentity, identityAt, identityDigest } from "./home-identity.js";

/**
 * Where the verdict cache lives (docs/store.md, "The verdict cache"): outside MC_HOME, in a
 * per-user cache root, so that a listing creates, repairs and deletes nothing in MC_HOME (the
 * base contract, §1). The root is MC_AGENT_CACHE_DIR if set, else `$XDG_CACHE_HOME/mc-agent`,
 * else `$HOME/.cache/mc-agent`; relative paths are ignored, as XDG says; none: no cache. Within
 * it, one folder per MC_HOME identity, `sessions-<32 hex>`: a digest of MC_HOME's real path,
 * device and inode, so that two homes never share verdicts and a home replaced by another at
 * the same path starts afresh.
 */
export interface VerdictPlace {
  /** The cache root (created 0700 when missing). */
  root: string;
  /** This MC_HOME's verdict folder inside the root. */
  folder: string;
  /** The home's identity the folder is named after (its `.home` marker: verdict-homes.ts). */
  identity: HomeIdentity;
}

/** The place for `home` under `env`, or null: the cache is off for this operation. */
export function verdictPlace(env: NodeJS.ProcessEnv, home: string): VerdictPlace | null {
  const root = verdictCacheRoot(env);
  if (root === null) return null;
  const identity = identityAt(home);
  if (identity === null) return null; // no MC_HOME yet: nothing to list, nothing to cache
  const realHome = identity.path;
  // A root inside MC_HOME (HOME=MC_HOME, say) would write into MC_HOME: no cache then.
  const realRoot = realish(root);
  if (
    realRoot === realHome ||
    realRoot.startsWith(realHome.endsWith(sep) ? realHome : realHome + sep)
  )
    return null;
  return { root, folder: join(root, `sessions-${identityDigest(identity)}`), identity };
}

/**
 * Whether the place may be used: the root and the folder are each missing or a real folder
 * (never a symlink) owned by this user and writable by no one else. `missing` lets a writer
 * create them; `unsafe` turns the cache off for the operation (never an error).
 */
export function inspectVerdictPlace(place: VerdictPlace): "ready" | "missing" | "unsafe" {
  const uid = process.getuid?.();
  for (const folder of [place.root, place.folder]) {
    let stats: import("node:fs").Stats | undefined;
    try {
      stats = lstatSync(folder, { throwIfNoEntry: false });
    } catch {
      return "unsafe";
    }
    if (stats === undefined) return "missing";
    if (!stats.isDirectory()) return "unsafe";
    if (uid !== undefined && stats.uid !== uid) return "unsafe";
    if ((stats.mode & 0o022) !== 0) return "unsafe";
  }
  return "ready";
}

/** Creates the root (and missing parents) and the folder, mode 0700; true when then ready. */
export async function createVerdictPlace(place: VerdictPlace): Promise<boolean> {
  const state = inspectVerdictPlace(place);
  if (state === "unsafe") return false;
  if (state === "missing") {
    await mkdir(place.root, { recursive: true, mode: 0o700 });
    await mkdir(place.folder, { mode: 0o700 }).catch((error: { code?: string }) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
  // Checked again: a symlink or a foreign folder planted meanwhile must not receive the files.
  return inspectVerdictPlace(place) === "ready";
}
