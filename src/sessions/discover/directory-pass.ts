import { type Dir, lstatSync, opendirSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import { InventorySignature } from "../../store/inventory.js";
import { classifyName, type EntryKind } from "../../store/layout.js";
import { errorCode, StoreUnavailable } from "../../store/safe-open.js";

/**
 * One pass over the sessions folder in directory order with a held `fs.opendir` iterator,
 * adding each entry to an order-independent inventory signature. Discovery runs two: the
 * enumeration pass (which also reads histories) and the final validation pass.
 */
export interface PassEntry {
  name: string;
  kind: EntryKind;
  stats: import("node:fs").BigIntStats;
}

export class DirectoryPass {
  readonly signature = new InventorySignature();
  private dir: Dir | null;

  constructor(private readonly root: string) {
    try {
      this.dir = opendirSync(root);
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
    const name = dirent.name;
    const kind = classifyName(name);
    let stats: import("node:fs").BigIntStats;
    try {
      stats = lstatSync(join(this.root, name), { bigint: true });
    } catch (error) {
      // Gone between enumeration and lstat: the inventory changed under the scan.
      if (errorCode(error) === "ENOENT") throw new ProtocolError("stale_revision");
      throw new StoreUnavailable();
    }
    this.signature.add(name, stats, kind.kind === "lock");
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
