import { hash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";

/**
 * Which MC_HOME a verdict folder belongs to: its real path, device and inode. The folder is
 * named by a digest of it (verdict-root.ts), and its `.home` marker names it in full, so that a
 * prune knows a home that is gone or replaced (verdict-homes.ts).
 */
export interface HomeIdentity {
  path: string;
  dev: string;
  ino: string;
}

/** The folder digest of an identity (verdict-root.ts names folders with it). */
export function identityDigest(identity: HomeIdentity): string {
  return hash("sha256", `${identity.path}\0${identity.dev}\0${identity.ino}`, "hex").slice(0, 32);
}

/** The identity of the home at `path` now, or null when there is none. */
export function identityAt(path: string): HomeIdentity | null {
  try {
    const real = realpathSync(path);
    const stats = statSync(real, { bigint: true });
    if (!stats.isDirectory()) return null;
    return { path: real, dev: String(stats.dev), ino: String(stats.ino) };
  } catch {
    return null;
  }
}
