import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Every entry under `root` by relative path: a folder, a symlink with its target, or a file
 * with its permission bits and the SHA-256 of its bytes. Equal digests: byte for byte the same
 * tree, modes and links included (mtimes aside). `skip` leaves out top-level names. Names are
 * read as bytes: a UTF-8 name is its text, any other is written with `\xNN` escapes (so two
 * names that differ only in bytes that are not UTF-8 never meet under one key), link targets
 * likewise.
 */
export function treeDigest(root: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: Buffer, prefix: string) => {
    const names = readdirSync(dir, { encoding: "buffer" }).sort(Buffer.compare);
    for (const raw of names) {
      const name = nameOf(raw);
      if (prefix === "" && skip.includes(name)) continue;
      const path = Buffer.concat([dir, Buffer.from("/"), raw]);
      const label = prefix + name;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) out[label] = `link ${nameOf(readlinkSync(path, "buffer"))}`;
      else if (stats.isDirectory()) {
        out[label] = "dir";
        walk(path, `${label}/`);
      } else {
        const hash = createHash("sha256").update(readFileSync(path)).digest("hex");
        out[label] = `file ${(stats.mode & 0o7777).toString(8)} ${hash}`;
      }
    }
  };
  walk(Buffer.from(root), "");
  return out;
}

/** A name's text when it is UTF-8, else its bytes with `\xNN` for every byte past ASCII. */
export function nameOf(raw: Buffer): string {
  const text = raw.toString("utf8");
  if (Buffer.from(text, "utf8").equals(raw)) return text;
  return [...raw]
    .map((byte) => (byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16)}`))
    .join("");
}
