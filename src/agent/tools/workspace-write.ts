/**
 * The one way the edit tools change a file: atomically (temp file, fsync, rename, folder fsync,
 * through the store's `writeFileAtomic`), so a reader or a crash sees the old file or the new
 * one, never a torn one. A replaced file keeps its mode; a new one gets 0644 and its missing
 * folders are created with the process's default mode.
 */
import { lstat, mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../../store/atomic-write.js";
import { readTextForEdit } from "./text-file.js";
import { ToolError } from "./tool.js";
import { codeOf, type WritablePath } from "./workspace-path.js";

const NEW_FILE_MODE = 0o644;

/**
 * Writes `content` if the file still holds `before` (null: still does not exist), the content
 * the approved diff was made from; a file changed meanwhile (the user kept working while the
 * approval waited) is a tool error, not a silent overwrite.
 */
export async function writeWorkspaceFile(
  target: WritablePath,
  before: string | null,
  content: string,
): Promise<void> {
  await refuseIfChanged(target, before);
  try {
    const mode = target.exists ? (await stat(target.absolute)).mode & 0o7777 : NEW_FILE_MODE;
    await mkdir(dirname(target.absolute), { recursive: true });
    await writeFileAtomic(target.absolute, Buffer.from(content, "utf8"), mode);
  } catch {
    throw new ToolError(`could not write ${target.shown}`);
  }
}

async function refuseIfChanged(target: WritablePath, before: string | null): Promise<void> {
  const changed = new ToolError(
    `${target.shown} changed since this edit was prepared; read it again`,
  );
  if (before === null) {
    const exists = await lstat(target.absolute).then(
      () => true,
      (error) => codeOf(error) !== "ENOENT",
    );
    if (exists) throw changed;
    return;
  }
  const now = await readTextForEdit(target).catch(() => null);
  if (now !== before) throw changed;
}
