import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";

/**
 * An order-independent signature of a folder's entries: each entry's tuple is hashed with
 * SHA-256 and the digests are added word by word (eight 32-bit sums, modulo 2^32), so two
 * passes that enumerate the same entries in any order produce the same value, in constant
 * memory whatever the folder's size.
 *
 * The tuple is name, device, inode, mode (type and permissions), length, mtime and ctime in
 * nanoseconds. For lock files it is name, device, inode and mode only: renewing a lock rewrites
 * its timestamp (changing length, mtime and ctime), and that must not invalidate a scan.
 */
export class InventorySignature {
  private readonly sums = new Uint32Array(8);
  private entries = 0;

  add(name: string, stats: BigIntStats, isLock: boolean): void {
    const digest = createHash("sha256")
      .update(entryTuple(name, stats, isLock))
      .digest();
    for (let word = 0; word < 8; word += 1) {
      this.sums[word] = ((this.sums[word] as number) + digest.readUInt32LE(word * 4)) >>> 0;
    }
    this.entries += 1;
  }

  get count(): number {
    return this.entries;
  }

  equals(other: InventorySignature): boolean {
    return this.entries === other.entries && this.sums.every((sum, i) => sum === other.sums[i]);
  }
}

function entryTuple(name: string, stats: BigIntStats, isLock: boolean): string {
  const identity = [name, stats.dev, stats.ino, stats.mode];
  const contents = isLock ? [] : [stats.size, stats.mtimeNs, stats.ctimeNs];
  return [...identity, ...contents].join("\u0000");
}

/** One file's identity and state, to notice that a held or emitted history changed. */
export function fileSignature(stats: BigIntStats): string {
  return [stats.dev, stats.ino, stats.mode, stats.size, stats.mtimeNs, stats.ctimeNs].join(":");
}

/** The sessions folder's identity, permissions and change time (entries added, removed, renamed). */
export function folderSignature(stats: BigIntStats): string {
  return [stats.dev, stats.ino, stats.mode, stats.ctimeNs].join(":");
}
