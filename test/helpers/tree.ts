import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Every entry under `root` with its type, size, mode and mtime: to prove nothing changed. */
export function treeSnapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stats = lstatSync(path, { bigint: true });
      out.push(`${relative(root, path)} ${stats.mode} ${stats.size} ${stats.mtimeNs}`);
      if (stats.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out;
}
