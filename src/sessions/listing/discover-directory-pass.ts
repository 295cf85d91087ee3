import { type BigIntStats, type Dir, lstatSync, opendirSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { InventorySignature } from "../../store/inventory.js";
import { classifyName, type EntryKind } from "../../store/layout.js";
import { errorCode, StoreUnavailable } from "../../store/safe-open.js";

/**
 * One pass over the sessions folder in directory order with a held `fs.opendir` iterator,
 * adding each entry to an order-independent inventory signature. Discovery runs two: the
 * enumeration pass (which also reads histories) and the final validation pass.
 *
 * Names are read as raw bytes: a name that is not valid UTF-8 is still examined and signed
 * (by its bytes) and then ignored like any other non-primary name, instead of being decoded
 * into a replacement character that no lstat could find.
 */
export interface PassEntry {
  /** The name, decoded; null when it is not valid UTF-8 (never a primary then). */
  name: string | null;
  kind: EntryKind;
  stats: BigIntStats;
}

// ignoreBOM: a leading U+FEFF is part of the name. Dropping it (the decoder's default) made
// "\uFEFF<id>.jsonl" pass for "<id>.jsonl", a different file; and only an exact decoding may
// stand for the raw bytes in the lstat path below.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeName(raw: Buffer): string | null {
  try {
    return utf8.decode(raw);
  } catch {
    return null;
  }
}

export class DirectoryPass {
  readonly signature = new InventorySignature();
  private dir: Dir | null;
  private readonly rootPrefix: Buffer;
  private readonly rootText: string;

  constructor(root: string) {
    this.rootText = `${root}/`;
    this.rootPrefix = Buffer.from(this.rootText);
    try {
      this.dir = opendirSync(root, { encoding: "buffer" } as unknown as { encoding: "utf8" });
    } catch {
      throw new StoreUnavailable();
    }
  }

  /**
   * The next entry, lstat'ed and signed, or null at the end of the folder. Synchronous: the
   * iterator reads the folder in batches of 32 names, microseconds each.
   */
  next(): PassEntry | null {
    if (this.dir === null) return null;
    let dirent: import("node:fs").Dirent | null;
    try {
      dirent = this.dir.readSync();
    } catch {
      throw new StoreUnavailable();
    }
    if (dirent === null) {
      this.close();
      return null;
    }
    const raw = dirent.name as unknown as Buffer;
    const name = decodeName(raw);
    const kind: EntryKind = name === null ? { kind: "ignored" } : classifyName(name);
    let stats: BigIntStats;
    try {
      // A decoded name is the raw bytes exactly; joining text skips a Buffer.concat per entry.
      const path = name === null ? Buffer.concat([this.rootPrefix, raw]) : this.rootText + name;
      stats = lstatSync(path, { bigint: true });
    } catch (error) {
      // Gone between enumeration and lstat: the inventory changed under the scan.
      if (errorCode(error) === "ENOENT") throw new ProtocolError("stale_revision");
      throw new StoreUnavailable();
    }
    this.signature.add(raw, stats, kind.kind === "lock");
    return { name, kind, stats };
  }

  close(): void {
    const dir = this.dir;
    this.dir = null;
    try {
      dir?.closeSync();
    } catch {}
  }
}
