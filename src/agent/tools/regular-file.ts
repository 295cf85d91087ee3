/**
 * Opening a workspace file for reading without ever blocking on it. Opening a FIFO for reading
 * blocks until some process opens it for writing; the open runs in a libuv thread that nothing
 * can interrupt, so it would hold the tool call, the turn and even the child's exit for good
 * (issue 17). Opening a device node can have effects of its own. So the entry is lstat'ed and
 * only a regular file is opened, with O_NONBLOCK (a FIFO swapped in between the two calls then
 * opens at once instead of blocking; regular files ignore the flag), and the descriptor is
 * checked again. A FIFO, socket or device is a tool error.
 */
import { constants } from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";
import { type FileOpener, ToolError } from "./tool.js";
import { fsToolError, type WorkspacePath } from "./workspace-path.js";

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** lstat first, then open with O_NONBLOCK: a FIFO, socket or device is never opened blocking. */
const openWithoutBlocking: FileOpener = async (absolute) =>
  (await lstat(absolute)).isFile() ? open(absolute, READ_FLAGS) : null;

export interface OpenOptions {
  /** The tool error's text for an entry that is not a regular file (a folder, a FIFO, ...). */
  notRegular?: string;
  /** How the entry is opened (default `openWithoutBlocking`); the descriptor is checked after. */
  opener?: FileOpener;
}

/** `target` opened for reading if it is a regular file; any other entry is a ToolError. */
export async function openRegularFile(
  target: WorkspacePath,
  options: OpenOptions = {},
): Promise<FileHandle> {
  const refused = new ToolError(options.notRegular ?? `${target.shown} is not a regular file`);
  let handle: FileHandle;
  try {
    const opened = await (options.opener ?? openWithoutBlocking)(target.absolute);
    if (opened === null) throw refused;
    handle = opened;
  } catch (error) {
    throw error instanceof ToolError ? error : fsToolError(error, target.shown);
  }
  try {
    if ((await handle.stat()).isFile()) return handle;
  } catch {}
  await handle.close().catch(() => {});
  throw refused;
}

/**
 * `path` opened for reading if it is a regular file, else null: never a blocking open. For files
 * read on a tool's or the turn's own account (search's files, `.gitignore`s, AGENTS.md), where
 * anything else is skipped rather than reported. Symlinks are followed unless `noFollow`.
 */
export async function openIfRegular(
  path: string,
  { noFollow = false }: { noFollow?: boolean } = {},
): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, noFollow ? READ_FLAGS | constants.O_NOFOLLOW : READ_FLAGS);
  } catch {
    return null;
  }
  try {
    if ((await handle.stat()).isFile()) return handle;
  } catch {}
  await handle.close().catch(() => {});
  return null;
}
