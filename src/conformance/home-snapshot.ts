import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A fingerprint of everything under a folder: every entry's relative path, type, mode, size,
 * modification time and content hash. Two equal snapshots mean nothing was created, removed,
 * written, touched or re-permissioned in between.
 */
export function homeSnapshot(root: string): string {
  const rows: string[] = [];
  walk(root, "", rows);
  return rows.sort().join("\n");
}

function walk(root: string, relative: string, rows: string[]): void {
  for (const name of readdirSync(join(root, relative))) {
    const path = relative ? `${relative}/${name}` : name;
    const full = join(root, path);
    const stat = lstatSync(full);
    const kind = stat.isDirectory() ? "d" : stat.isFile() ? "f" : stat.isSymbolicLink() ? "l" : "o";
    const hash = kind === "f" ? createHash("sha1").update(readFileSync(full)).digest("hex") : "";
    rows.push(`${path} ${kind} ${stat.mode.toString(8)} ${stat.size} ${stat.mtimeMs} ${hash}`);
    if (kind === "d") walk(root, path, rows);
  }
}

/** The lines that differ between two snapshots, for a readable failure. */
export function snapshotDiff(before: string, after: string): string[] {
  const a = new Set(before.split("\n"));
  const b = new Set(after.split("\n"));
  return [
    ...[...a].filter((row) => !b.has(row)).map((row) => `- ${row}`),
    ...[...b].filter((row) => !a.has(row)).map((row) => `+ ${row}`),
  ];
}
