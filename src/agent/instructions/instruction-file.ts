/**
 * Reading one folder's instructions file safely, as the workspace's AGENTS.md always was read:
 * never a blocking open (a FIFO is refused), only a regular file, at most 32 KiB (+1 byte, to
 * know it is longer) kept. Inside the workspace a file is confined as `read_file` confines a
 * path (a symlink resolving outside is ignored); above it (MC_HOME, the git root's folders) a
 * symlink is not followed.
 */
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { headBytes } from "../../protocol/text-cut.js";
import { openIfRegular } from "../tools/regular-file.js";
import { type HeldFolder, holdWorkspaceFolder } from "../tools/workspace-folder.js";
import { resolveExisting } from "../tools/workspace-path.js";

const KEEP_BYTES = 32 * 1024;
const NAMES = ["AGENTS.override.md", "AGENTS.md"];

export interface InstructionFile {
  /** `AGENTS.override.md` or `AGENTS.md`. */
  name: string;
  /** Its first 32 KiB + 1 bytes. */
  bytes: Buffer;
  /** Its whole size. */
  size: number;
  /** The text within `limit` bytes, cut at a character with a note saying so. */
  cut(limit: number): string;
}

/** The instructions file of a folder outside the workspace, or null. */
export function readAbove(folder: string): Promise<InstructionFile | null> {
  return firstOf((name) => openIfRegular(join(folder, name), { noFollow: true }));
}

/** The instructions file of a workspace folder (`"."` for the workspace itself), or null. */
export function readInWorkspace(
  workspace: string,
  folder: string,
): Promise<InstructionFile | null> {
  return firstOf((name) => openConfined(workspace, folder === "." ? name : `${folder}/${name}`));
}

/** The first of the names that is a non-empty regular file. */
async function firstOf(
  open: (name: string) => Promise<FileHandle | null>,
): Promise<InstructionFile | null> {
  for (const name of NAMES) {
    const handle = await open(name);
    if (handle === null) continue;
    try {
      const { size } = await handle.stat();
      const buffer = Buffer.alloc(KEEP_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead === 0) continue;
      const bytes = buffer.subarray(0, bytesRead);
      return {
        name,
        bytes,
        size: Math.max(size, bytesRead),
        cut: (limit) => cut(name, bytes, size, limit),
      };
    } catch {
    } finally {
      await handle.close();
    }
  }
  return null;
}

function cut(name: string, bytes: Buffer, size: number, limit: number): string {
  if (bytes.length <= limit) return bytes.toString("utf8");
  // Cut on a character boundary, never inside a multi-byte sequence.
  const head = Buffer.from(headBytes(bytes, limit));
  const note =
    limit === KEEP_BYTES
      ? `[${name} truncated at 32 KiB]`
      : `[${name} cut: ${size - head.length} bytes left out to keep the instruction files within 32 KiB together]`;
  return head.length === 0 ? note : `${head.toString("utf8")}\n${note}`;
}

/**
 * A workspace file resolved as read_file resolves a path, then opened in its real folder (held,
 * reached without a symlink), without following a symlink and only if it is a regular file;
 * null for anything refused or missing.
 */
async function openConfined(workspace: string, path: string): Promise<FileHandle | null> {
  let folder: HeldFolder | null = null;
  try {
    const real = await resolveExisting(workspace, path);
    const parts = real.relative.split("/");
    const name = parts.pop() as string;
    folder = await holdWorkspaceFolder(workspace, parts, path, false);
    return await openIfRegular(folder.at(name), { noFollow: true });
  } catch {
    return null;
  } finally {
    await folder?.close();
  }
}
