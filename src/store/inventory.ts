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
    // Whole-word reads through one copy into an aligned view: eight readUInt32LE calls per
    // entry cost more than the copy in a fresh child, where they run unoptimised.
    digestWords.set(digest);
    for (let word = 0; word < 8; word += 1) {
      this.sums[word] = ((this.sums[word] as number) + (digestView[word] as number)) >>> 0;
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
 * The tuple in binary: the six 64-bit fields (times as two's complement: a file may predate
 * 1970; zero for a lock's contents), the name's length (so that name and numbers cannot run
 * into each other), then the name's bytes. Binary rather than text: converting six BigInts to
 * decimal for every entry of both passes cost more than the hashing. The fields are stored
 * through a BigUint64Array view (platform byte order: both passes run in the same process),
 * one store each where `writeBigUInt64LE` is a bounds-checked call. Hashed in one shot
 * (`crypto.hash` is half the cost of a `createHash` object per entry) from one reused buffer:
 * the signature is computed synchronously, one entry at a time. Folder names are at most 255
 * bytes on the filesystems in use; a longer one gets a buffer of its own.
 */
const FIELDS_BYTES = 6 * 8;
const HEADER_BYTES = FIELDS_BYTES + 4;
const scratchMemory = new ArrayBuffer(HEADER_BYTES + 1024);
const scratch = Buffer.from(scratchMemory);
const fields = new BigUint64Array(scratchMemory, 0, 6);
const digestWords = new Uint8Array(32);
const digestView = new Uint32Array(digestWords.buffer);

function entryTuple(name: Uint8Array | string, stats: BigIntStats, isLock: boolean): Buffer {
  const nameBytes = typeof name === "string" ? Buffer.from(name) : name;
  const length = HEADER_BYTES + nameBytes.length;
  const large = length > scratch.length;
  const tuple = large ? Buffer.alloc(length) : scratch.subarray(0, length);
  fields[0] = stats.dev;
  fields[1] = stats.ino;
  fields[2] = stats.mode;
  // BigUint64Array stores a negative time modulo 2^64: the same bits as a signed 64-bit field.
  fields[3] = isLock ? 0n : stats.size;
  fields[4] = isLock ? 0n : stats.mtimeNs;
  fields[5] = isLock ? 0n : stats.ctimeNs;
  if (large) tuple.set(scratch.subarray(0, FIELDS_BYTES));
  tuple.writeUInt32LE(nameBytes.length, FIELDS_BYTES);
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
