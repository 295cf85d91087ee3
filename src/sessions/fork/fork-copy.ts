import { constants, fstatSync, linkSync, unlinkSync } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import { tempName } from "../../store/atomic-write.js";
import { primaryName, sessionsDir } from "../../store/layout.js";
import { closeQuietly, openPrimary } from "../../store/safe-open.js";
import { RECORD_BYTES } from "../records/facts.js";
import { RecordReader } from "../records/record-reader.js";
import type { Slicer } from "../slicer.js";
import { removeOrphans } from "./fork-orphans.js";
import type { ForkPlan } from "./fork-plan.js";

/**
 * The second pass of `session.fork`: the fork's history is written to a temp file in the
 * sessions folder (`.<new id>.jsonl.<pid>.<hex>.tmp`, a name no reader lists), its own
 * `session_meta` first, then the planned records of the source copied byte for byte, record by
 * record (never more than one record and a 64 KiB buffer in memory). Only once the temp file is
 * whole and fsynced does `link` make it the new primary, in one step that cannot replace an
 * existing file: a fork killed at any moment leaves either no new session or a whole one, never
 * half of one. An orphan temp file (its writer killed) is removed by the next fork.
 */

const CHUNK_BYTES = 64 * 1024;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface PreparedFork {
  /** The commit point: the temp file becomes `<new id>.jsonl`. Synchronous. */
  link(): void;
  /** After `link`: drops the temp name and makes the new entry durable (best effort). */
  settle(): Promise<void>;
  /** Before `link` (a cancel, a failure): removes the temp file. */
  discard(): Promise<void>;
  /** After `link`, when a later step of the same commit failed: removes the linked name. */
  unlink(): void;
}

export async function prepareFork(
  home: string,
  sourceId: string,
  newId: string,
  meta: Record<string, unknown>,
  plan: ForkPlan,
  slicer: Slicer,
  { sweep = true }: { sweep?: boolean } = {},
): Promise<PreparedFork> {
  const root = sessionsDir(home);
  if (sweep) await removeOrphans(home);
  const temp = join(root, tempName(primaryName(newId), process.pid));
  const target = join(root, primaryName(newId));
  let handle: FileHandle;
  try {
    handle = await open(temp, TEMP_FLAGS, 0o600);
  } catch {
    throw new ProtocolError("history_write_failed");
  }
  const discard = () => unlink(temp).catch(() => {});
  try {
    const out = new ChunkedOut(handle);
    await out.line(Buffer.from(JSON.stringify(meta)));
    await copyRecords(root, sourceId, plan, out, slicer);
    await out.finish();
  } catch (error) {
    await handle.close().catch(() => {});
    await discard();
    throw error;
  }
  return {
    link() {
      try {
        linkSync(temp, target);
      } catch {
        throw new ProtocolError("history_write_failed");
      }
    },
    async settle() {
      try {
        unlinkSync(temp);
      } catch {}
      await syncFolder(root);
    },
    discard,
    unlink() {
      try {
        unlinkSync(target);
      } catch {}
    },
  };
}

/** The plan's records of the source, re-read from the very file the plan read. */
async function copyRecords(
  root: string,
  sourceId: string,
  plan: ForkPlan,
  out: ChunkedOut,
  slicer: Slicer,
): Promise<void> {
  const opened = openPrimary(root, primaryName(sourceId));
  if (!opened.ok)
    throw new ProtocolError(opened.problem === "missing" ? "session_missing" : "session_invalid");
  try {
    const stats = fstatSync(opened.fd, { bigint: true });
    // Replaced since the plan (not appended to: appends keep the inode and the planned prefix).
    if (String(stats.dev) !== plan.file.dev || String(stats.ino) !== plan.file.ino)
      throw new ProtocolError("session_invalid");
    const reader = new RecordReader(opened.fd, RECORD_BYTES);
    const allowance = { bytes: Number.POSITIVE_INFINITY };
    for (let index = 0; index < plan.records; ) {
      const read = reader.next(allowance);
      if (read.kind === "paused") {
        await slicer.pause();
        continue;
      }
      // Shorter than planned, or a record grown past the bound: not the history the plan read.
      if (read.kind !== "record") throw new ProtocolError("session_invalid");
      if (index > 0 || !plan.skipFirst) await out.line(read.source.subarray(read.from, read.to));
      index += 1;
      await slicer.pause(read.to - read.from + 64);
    }
  } finally {
    closeQuietly(opened.fd);
  }
}

/** Lines (each given without its LF) written through one 64 KiB buffer; write errors mapped. */
class ChunkedOut {
  private readonly chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;

  constructor(private readonly handle: FileHandle) {}

  async line(bytes: Buffer): Promise<void> {
    if (this.used + bytes.length + 1 > CHUNK_BYTES) await this.flush();
    if (bytes.length + 1 > CHUNK_BYTES) {
      // A large record goes out as it is (the reader's bytes stay valid until its next call).
      await this.write(bytes);
      this.chunk[this.used++] = 10;
      return;
    }
    bytes.copy(this.chunk, this.used);
    this.used += bytes.length;
    this.chunk[this.used++] = 10;
  }

  async finish(): Promise<void> {
    await this.flush();
    try {
      await this.handle.sync();
      await this.handle.close();
    } catch {
      throw new ProtocolError("history_write_failed");
    }
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const used = this.used;
    this.used = 0;
    await this.write(this.chunk.subarray(0, used));
  }

  private async write(bytes: Buffer): Promise<void> {
    try {
      for (let done = 0; done < bytes.length; ) {
        const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done);
        done += bytesWritten;
      }
    } catch {
      throw new ProtocolError("history_write_failed");
    }
  }
}

async function syncFolder(root: string): Promise<void> {
  try {
    const handle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
    await handle.sync().finally(() => handle.close());
  } catch {}
}
