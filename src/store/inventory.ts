import { hash } from "node:crypto";
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
    const digest = hash("sha256", entryTuple(name, stats, isLock), "buffer");
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
 * The tuple in binary: the name's length (so that name and numbers cannot run into each
 * other), the six 64-bit fields (times signed: a file may predate 1970; zero for a lock's
 * contents), then the name's bytes. Binary rather than text: converting six BigInts to decimal
 * for every entry of both passes cost more than the hashing. Hashed in one shot (`crypto.hash`
 * is half the cost of a `createHash` object per entry) from one reused buffer: the signature is
 * computed synchronously, one entry at a time. Folder names are at most 255 bytes on the
 * filesystems in use; a longer one gets a buffer of its own.
 */
const HEADER_BYTES = 4 + 6 * 8;
const scratch = Buffer.alloc(HEADER_BYTES + 1024);

function entryTuple(name: Uint8Array | string, stats: BigIntStats, isLock: boolean): Buffer {
  const nameBytes = typeof name === "string" ? Buffer.from(name) : name;
  const length = HEADER_BYTES + nameBytes.length;
  const tuple = length <= scratch.length ? scratch.subarray(0, length) : Buffer.alloc(length);
  tuple.writeUInt32LE(nameBytes.length, 0);
  tuple.writeBigUInt64LE(stats.dev, 4);
  tuple.writeBigUInt64LE(stats.ino, 12);
  tuple.writeBigUInt64LE(stats.mode, 20);
  tuple.writeBigUInt64LE(isLock ? 0n : stats.size, 28);
  tuple.writeBigInt64LE(isLock ? 0n : stats.mtimeNs, 36);
  tuple.writeBigInt64LE(isLock ? 0n : stats.ctimeNs, 44);
  tuple.set(nameBytes, HEADER_BYTES);
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
