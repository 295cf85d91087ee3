/**
 * File names as checkpoints handle them: bytes (docs/checkpoints.md, "File names"). A Linux
 * name need not be UTF-8 (`f\xff.t`), and a UTF-8 decode would turn it into another name (a
 * revert would then write U+FFFD's bytes beside the real file, and never remove it). Inside the
 * checkpoint code a workspace-relative path is therefore a raw string, one code unit per byte
 * (latin1): it round-trips exactly between git's `-z` output, the fs calls (as Buffers) and the
 * plan, and sorts by bytes. Only what leaves for the protocol (a result's path, a diff's
 * header) is decoded as UTF-8, where a byte that is not UTF-8 shows as U+FFFD.
 */

/** git's NUL-separated output (`-z`), as raw paths. */
export function splitZ(out: Buffer): string[] {
  return out
    .toString("latin1")
    .split("\0")
    .filter((part) => part.length > 0);
}

/** Raw paths as NUL-terminated input for git (`--stdin -z`). */
export function zJoin(paths: readonly string[]): Buffer {
  return Buffer.from(paths.map((path) => `${path}\0`).join(""), "latin1");
}

/** The bytes of a raw string (an exclude file, a path). */
export function rawBytes(raw: string): Buffer {
  return Buffer.from(raw, "latin1");
}

/** Text (a UTF-8 name, as checkpoints of meta v1 stored them) as a raw path. */
export function rawOf(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** A raw path as the protocol shows it: its bytes decoded as UTF-8. */
export function shown(raw: string): string {
  return Buffer.from(raw, "latin1").toString("utf8");
}

/** The on-disk name of a raw path under the workspace `root` (a JS string, UTF-8 on disk). */
export function onDisk(root: string, raw: string): Buffer {
  const base = Buffer.from(root, "utf8");
  if (raw === "") return base;
  const slash = base.at(-1) === 0x2f ? [] : [Buffer.from("/")];
  return Buffer.concat([base, ...slash, rawBytes(raw)]);
}

/** Whether `real` (a resolved folder, bytes) is `root` or inside it. */
export function insideRoot(root: string, real: Buffer): boolean {
  const base = Buffer.from(root, "utf8");
  if (real.equals(base)) return true;
  const slashed = base.at(-1) === 0x2f ? base : Buffer.concat([base, Buffer.from("/")]);
  return real.length > slashed.length && real.subarray(0, slashed.length).equals(slashed);
}
