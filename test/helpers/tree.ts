import { lstatSync, readdirSync } from "node:fs";

/**
 * Every entry under `root` with its type, size, mode and mtime: to prove nothing changed.
 * Names are read as bytes, so entries whose names are not valid UTF-8 are included too.
 */
export function treeSnapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: Buffer, shown: string) => {
    const names = readdirSync(dir, { encoding: "buffer" }).sort(Buffer.compare);
    for (const name of names) {
      const path = Buffer.concat([dir, Buffer.from("/"), name]);
      const label = `${shown}/${name.toString("hex")}`;
      const stats = lstatSync(path, { bigint: true });
      out.push(`${label} ${stats.mode} ${stats.size} ${stats.mtimeNs}`);
      if (stats.isDirectory()) walk(path, label);
    }
  };
  walk(Buffer.from(root), "");
  return out;
}
