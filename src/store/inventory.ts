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

  /** `name` as the folder gave it: raw bytes (a name need not be UTF-8), or a string. */
  add(name: Uint8Array | string, stats: BigIntStats, isLock: boolean): void {
    const digest = createHash("sha256")
      .update(entryTuple(name, stats, isLock))
      .update(name)
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

/**
 * The tuple's fixed-size part in binary: the name's length (so that name and numbers cannot run
 * into each other), then the six 64-bit fields, zero for a lock's contents. Binary rather than
 * text: converting six BigInts to decimal for every entry of both passes cost more than the
 * hashing. Reused: the signature is computed synchronously, one entry at a time.
 */
const tuple = Buffer.alloc(4 + 6 * 8);

function entryTuple(name: Uint8Array | string, stats: BigIntStats, isLock: boolean): Buffer {
  tuple.writeUInt32LE(typeof name === "string" ? Buffer.byteLength(name) : name.length, 0);
  tuple.writeBigUInt64LE(stats.dev, 4);
  tuple.writeBigUInt64LE(stats.ino, 12);
  tuple.writeBigUInt64LE(stats.mode, 20);
  tuple.writeBigUInt64LE(isLock ? 0n : stats.size, 28);
  tuple.writeBigInt64LE(isLock ? 0n : stats.mtimeNs, 36);
  tuple.writeBigInt64LE(isLock ? 0n : stats.ctimeNs, 44);
  return tuple;
}

/** One file's identity and state, to notice that a held or emitted history changed. */
export function fileSignature(stats: BigIntStats): string {
  return [stats.dev, stats.ino, stats.mode, stats.size, stats.mtimeNs, stats.ctimeNs].join(":");
}

/** `fileSignature(a) === fileSignature(b)`, without turning six BigInts into text twice. */
export function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.mode === b.mode &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}

/** The sessions folder's identity, permissions and change time (entries added, removed, renamed). */
export function folderSignature(stats: BigIntStats): string {
  return [stats.dev, stats.ino, stats.mode, stats.ctimeNs].join(":");
}
