/**
 * The one way the edit tools change a file: atomically (temp file, fsync, rename, folder fsync,
 * through the store's `writeFileAtomicIn`), so a reader or a crash sees the old file or the new
 * one, never a torn one. A replaced file keeps its mode; a new one gets 0644 and its missing
 * folders are created with the process's default mode.
 *
 * Confinement is done again here, at execution: planning ran before an approval that may wait
 * for minutes, during which a folder on the path can become a symlink out of the workspace or
 * into `.git/`. So the path is resolved and refused again exactly as at planning, must still be
 * the approved one, and is then reached one folder at a time without following a symlink; the
 * temp file and the rename happen in that held folder (workspace-folder.ts says what window is
 * left).
 */
import { lstat, unlink } from "node:fs/promises";
import { writeFileAtomicIn } from "../../store/atomic-write.js";
import { readTextForEdit } from "./text-file.js";
import { ToolError } from "./tool.js";
import { type HeldFolder, holdWorkspaceFolder } from "./workspace-folder.js";
import { codeOf, resolveForWrite, type WritablePath } from "./workspace-path.js";

const NEW_FILE_MODE = 0o644;

/**
 * Writes `content` at `planned` (what `given`, the model's path, resolved to at planning) if the
 * file still holds `before` (null: still does not exist), the content the approved diff was made
 * from; a file changed meanwhile (the user kept working while the approval waited) is a tool
 * error, not a silent overwrite, and so is a path that now resolves elsewhere.
 */
export async function writeWorkspaceFile(
  workspace: string,
  given: string,
  planned: WritablePath,
  before: string | null,
  content: string,
  /** The turn's signal: a call the engine gave up at an interrupt writes nothing afterwards. */
  signal: AbortSignal,
): Promise<void> {
  const now = await resolveForWrite(workspace, given);
  if (now.relative !== planned.relative || now.exists !== planned.exists) throw changed(planned);
  const parts = planned.relative.split("/");
  const name = parts.pop() as string;
  const folder = await holdWorkspaceFolder(workspace, parts, planned.shown, !planned.exists);
  try {
    const mode = await refuseIfChanged(folder, name, planned, before);
    await commit(folder, name, planned, Buffer.from(content, "utf8"), mode, signal);
  } finally {
    await folder.close();
  }
}

async function commit(
  folder: HeldFolder,
  name: string,
  planned: WritablePath,
  bytes: Buffer,
  mode: number,
  signal: AbortSignal,
): Promise<void> {
  const moved = new ToolError(`${planned.shown}: its folder was moved while writing`);
  try {
    await writeFileAtomicIn(folder.path, name, bytes, mode, (rename) => {
      if (!folder.inPlace()) throw moved;
      // An interrupt may have come while a step above was stuck (abort-bound.ts gives the call
      // up after a grace): the turn has said "interrupted", so nothing may change after it.
      if (signal.aborted) throw new ToolError(`${planned.shown} was not written: interrupted`);
      return rename();
    });
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(`could not write ${planned.shown}`);
  }
  if (folder.inPlace()) return;
  // Moved out between the check and the rename: a new file is taken back; a replaced file's old
  // content is gone with the folder, wherever its mover put it, and the call says it failed.
  if (!planned.exists) await unlink(folder.at(name)).catch(() => {});
  throw moved;
}

/**
 * The target in the held folder must be as planned: absent for a new file; for a replacement a
 * regular file (not a symlink swapped in) with the planned content. Returns the mode to write.
 */
async function refuseIfChanged(
  folder: HeldFolder,
  name: string,
  planned: WritablePath,
  before: string | null,
): Promise<number> {
  const path = folder.at(name);
  const seen = await lstat(path).catch((error) => {
    if (codeOf(error) === "ENOENT") return null;
    throw new ToolError(`could not write ${planned.shown}`);
  });
  if (before === null) {
    if (seen !== null) throw changed(planned);
    return NEW_FILE_MODE;
  }
  if (seen === null || !seen.isFile()) throw changed(planned);
  const text = await readTextForEdit({ ...planned, absolute: path }).catch(() => null);
  if (text !== before) throw changed(planned);
  return seen.mode & 0o7777;
}

function changed(planned: WritablePath): ToolError {
  return new ToolError(`${planned.shown} changed since this edit was prepared; read it again`);
}
