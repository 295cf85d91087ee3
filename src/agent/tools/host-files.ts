/**
 * The edit tools' reads and writes when the frontend offers its own file system (tool-host.ts):
 * the text an edit is planned on is the editor's (an unsaved buffer included), and the write goes
 * through the editor, which updates the buffer and the file. Everything around the I/O stays
 * ours: the path was confined at planning and is resolved and refused again before the write
 * exactly as workspace-write.ts does; a file whose text changed since the approved diff was made
 * is refused; a new file's missing folders are created by us, one held folder at a time
 * (workspace-folder.ts); the bounds (EDIT_FILE_BYTES, binary, UTF-8) are the same; and nothing
 * is sent to the editor once the turn's signal has aborted.
 *
 * What the held folder gives our own write and this one cannot: the editor writes by path, so a
 * folder on the path swapped for a symlink between our last check and the editor's write (one
 * round trip) would be followed. The path sent is the real one, so only such a swap matters.
 */
import { lstat } from "node:fs/promises";
import { utf8Length } from "../../protocol/raw-json.js";
import { isWellFormed } from "../../protocol/well-formed.js";
import { BINARY_SNIFF_BYTES, EDIT_FILE_BYTES, readTextForEdit } from "./text-file.js";
import type { ToolContext } from "./tool.js";
import { ToolError } from "./tool.js";
import type { LineRange, ToolHost } from "./tool-host.js";
import { holdWorkspaceFolder } from "./workspace-folder.js";
import {
  codeOf,
  fsToolError,
  resolveForWrite,
  type WorkspacePath,
  type WritablePath,
} from "./workspace-path.js";
import { writeWorkspaceFile } from "./workspace-write.js";

/** A host that offers reads. */
export type HostReader = Required<Pick<ToolHost, "readTextFile">>;

/**
 * The entry must be a regular file on disk before the editor is asked for it: a folder gets the
 * same error as without a host, and a FIFO or a device is never handed to the editor to open.
 */
export async function refuseIfNotRegular(target: WorkspacePath, message?: string): Promise<void> {
  const stats = await lstat(target.absolute).catch((error) => {
    throw fsToolError(error, target.shown);
  });
  if (!stats.isFile()) throw new ToolError(message ?? `${target.shown} is not a regular file`);
}

/** The editor's text of `target`; a failure says only that the editor could not read it. */
export async function readHostText(
  host: HostReader,
  target: WorkspacePath,
  range: LineRange | null,
  signal: AbortSignal,
): Promise<string> {
  try {
    return await host.readTextFile(target.absolute, range, signal);
  } catch {
    throw new ToolError(`${target.shown}: the editor could not read it`);
  }
}

/** The whole text an edit starts from: the editor's when it offers reads, else the file's. */
export async function readForEdit(ctx: ToolContext, target: WorkspacePath): Promise<string> {
  const host = ctx.host;
  if (!host?.readTextFile) return readTextForEdit(target);
  await refuseIfNotRegular(target);
  const text = await readHostText(host as HostReader, target, null, ctx.signal);
  if (utf8Length(text) > EDIT_FILE_BYTES) {
    throw new ToolError(
      `${target.shown} is larger than ${EDIT_FILE_BYTES} bytes, the most the edit tools handle`,
    );
  }
  if (text.slice(0, BINARY_SNIFF_BYTES).includes("\0"))
    throw new ToolError(`${target.shown} is a binary file`);
  // A lone surrogate (a JSON escape) would not write back as the text the diff showed.
  if (!isWellFormed(text)) throw new ToolError(`${target.shown} is not valid UTF-8 text`);
  return text;
}

/**
 * Writes an approved edit: through the editor when it offers writes, else our atomic write.
 * `before` is what the diff was made from (null: a new file), read as `readForEdit` reads.
 */
export async function writeEdit(
  ctx: ToolContext,
  given: string,
  planned: WritablePath,
  before: string | null,
  content: string,
): Promise<void> {
  const host = ctx.host;
  if (!host?.writeTextFile) {
    // Our write compares the file on disk with `before`: a plan made on an unsaved buffer the
    // editor could not write for us is refused as changed, never written over the buffer.
    return writeWorkspaceFile(ctx.workspace, given, planned, before, content, ctx.signal);
  }
  const now = await resolveForWrite(ctx.workspace, given);
  if (now.relative !== planned.relative || now.exists !== planned.exists) throw changed(planned);
  if (planned.exists) {
    if ((await readForEdit(ctx, planned).catch(() => null)) !== before) throw changed(planned);
  } else await makeFolders(ctx.workspace, planned);
  // An interrupt may have come while a step above waited (abort-bound.ts): nothing after it.
  if (ctx.signal.aborted) throw new ToolError(`${planned.shown} was not written: interrupted`);
  try {
    await host.writeTextFile(planned.absolute, content, ctx.signal);
  } catch {
    throw new ToolError(`could not write ${planned.shown}: the editor refused the write`);
  }
}

/** A new file's missing folders, made as our own write makes them; the file must still be absent. */
async function makeFolders(workspace: string, planned: WritablePath): Promise<void> {
  const parts = planned.relative.split("/");
  const name = parts.pop() as string;
  const folder = await holdWorkspaceFolder(workspace, parts, planned.shown, true);
  try {
    const present = await lstat(folder.at(name)).then(
      () => true,
      (error) => codeOf(error) !== "ENOENT",
    );
    if (present || !folder.inPlace()) throw changed(planned);
  } finally {
    await folder.close();
  }
}

function changed(planned: WorkspacePath): ToolError {
  return new ToolError(`${planned.shown} changed since this edit was prepared; read it again`);
}
