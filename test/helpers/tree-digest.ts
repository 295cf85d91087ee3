import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Every entry under `root` by relative path: a folder, a symlink with its target, or a file
 * with its permission bits and the SHA-256 of its bytes. Equal digests: byte for byte the same
 * tree, modes and links included (mtimes aside). `skip` leaves out top-level names.
 */
export function treeDigest(root: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (prefix === "" && skip.includes(name)) continue;
      const path = join(dir, name);
      const label = prefix + name;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) out[label] = `link ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        out[label] = "dir";
        walk(path, `${label}/`);
      } else {
        const hash = createHash("sha256").update(readFileSync(path)).digest("hex");
        out[label] = `file ${(stats.mode & 0o7777).toString(8)} ${hash}`;
      }
    }
  };
  walk(root, "");
  return out;
}
