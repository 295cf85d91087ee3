import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";

/** The outcome of reading one store file that is allowed to be absent. */
export type SafeRead =
  | { kind: "missing" }
  | { kind: "too_large" }
  | { kind: "bytes"; bytes: Buffer };

/**
 * A store file that exists but must not be read: a symlink, a FIFO, a folder, or one the child
 * may not open. Carries no path: callers map it to a wire code.
 */
export class UnsafeStoreFile extends Error {
  /**
   * `unreadable`: the open failed (EACCES, EPERM, ...); `not_regular`: a symlink, FIFO, folder or
   * other non-regular file; `unsafe` when the caller does not say.
   */
  constructor(readonly why: "unreadable" | "not_regular" | "unsafe" = "unsafe") {
    super("store file is unsafe or unreadable");
    this.name = "UnsafeStoreFile";
  }
}

/** What an open that failed says about the file (O_NOFOLLOW on a symlink is ELOOP). */
function openFailure(error: unknown): UnsafeStoreFile {
  return new UnsafeStoreFile(errorCode(error) === "ELOOP" ? "not_regular" : "unreadable");
}

/**
 * Reads a regular file of at most `maxBytes` without following a final symlink and without
 * blocking on a FIFO (O_NOFOLLOW | O_NONBLOCK, then fstat on the opened descriptor so the check
 * and the read see the same file). The buffer is sized from fstat (one byte more, to notice
 * growth) and grows at most to `maxBytes + 1`, so memory stays bounded even if the file grows
 * while it is read.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<SafeRead> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    throw new UnsafeStoreFile();
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnsafeStoreFile();
    if (stat.size > maxBytes) return { kind: "too_large" };
    let buffer: Buffer = Buffer.allocUnsafe(stat.size + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) {
        if (filled > maxBytes) return { kind: "too_large" };
        buffer = grown(buffer, maxBytes + 1);
      }
    }
    return { kind: "bytes", bytes: buffer.subarray(0, filled) };
  } catch (error) {
    if (error instanceof UnsafeStoreFile) throw error;
    throw new UnsafeStoreFile();
  } finally {
    await handle.close().catch(() => {});
  }
}

/** A file that grew while it was read: continue in a buffer of the bound's size. */
function grown(buffer: Buffer, size: number): Buffer {
  const bigger = Buffer.allocUnsafe(size);
  buffer.copy(bigger);
  return bigger;
}

export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/**
 * The synchronous twin of `readRegularFile`, for the few small files read once while the child
 * starts (settings), before it reads its first frame. One difference: a path through something
 * that is not a folder (ENOTDIR) is missing too. Settings are optional files at paths the user
 * may use for anything else (`<cwd>/.mc` can be a plain file): such a file cannot exist, which is
 * absence, not an unsafe file.
 */
export function readRegularFileSync(path: string, maxBytes: number): SafeRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    throw openFailure(error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnsafeStoreFile("not_regular");
    if (stat.size > maxBytes) return { kind: "too_large" };
    let buffer: Buffer = Buffer.allocUnsafe(stat.size + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) {
        if (filled > maxBytes) return { kind: "too_large" };
        buffer = grown(buffer, maxBytes + 1);
      }
    }
    return { kind: "bytes", bytes: buffer.subarray(0, filled) };
  } catch (error) {
    if (error instanceof UnsafeStoreFile) throw error;
    throw new UnsafeStoreFile("unreadable");
  } finally {
    closeSync(fd);
  }
}
