/**
 * What the file tools count as text, and the whole-file read that edits start from.
 */
import { openRegularFile } from "./regular-file.js";
import { ToolError } from "./tool.js";
import { fsToolError, type WorkspacePath } from "./workspace-path.js";

/** Git's rule: a NUL byte among the first 8000 bytes makes a file binary. */
export const BINARY_SNIFF_BYTES = 8000;

/** The largest file write_file and edit_file replace or create (the diff is computed in memory). */
export const EDIT_FILE_BYTES = 4 * 1024 * 1024;

export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Strict UTF-8 that keeps a BOM, so a decoded file re-encodes to the very same bytes. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A whole text file of at most EDIT_FILE_BYTES, for edit_file and write_file's diff. */
export async function readTextForEdit(target: WorkspacePath): Promise<string> {
  let bytes: Buffer;
  try {
    // Never a blocking open: a FIFO or a device is refused before it is opened.
    const handle = await openRegularFile(target);
    try {
      const stats = await handle.stat();
      if (stats.size > EDIT_FILE_BYTES) throw tooLarge(target.shown);
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw error instanceof ToolError ? error : fsToolError(error, target.shown);
  }
  // It may have grown between the stat and the read.
  if (bytes.length > EDIT_FILE_BYTES) throw tooLarge(target.shown);
  if (looksBinary(bytes)) throw new ToolError(`${target.shown} is a binary file`);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ToolError(`${target.shown} is not valid UTF-8 text`);
  }
}

function tooLarge(shown: string): ToolError {
  return new ToolError(
    `${shown} is larger than ${EDIT_FILE_BYTES} bytes, the most the edit tools handle`,
  );
}
