/**
 * read_file: a text file's lines with their numbers, from `offset` (1-based), at most
 * READ_FILE_LINES lines and READ_FILE_BYTES bytes of the file's text. Binary files are refused.
 * The file is scanned in chunks, so a huge file (or a huge line) costs no more memory than the
 * bound.
 */
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { headBytes } from "../../protocol/text-cut.js";
import { type OpenOptions, openRegularFile } from "./regular-file.js";
import { looksBinary } from "./text-file.js";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { fsToolError, resolveExisting, type WorkspacePath } from "./workspace-path.js";

export const READ_FILE_LINES = 2000;
export const READ_FILE_BYTES = 256 * 1024;
const CHUNK_BYTES = 64 * 1024;

const ReadFileInput = z.strictObject({
  path: z.string().describe("File path, relative to the workspace (or absolute inside it)."),
  offset: z.number().int().min(1).optional().describe("First line to show, 1-based (default 1)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(READ_FILE_LINES)
    .optional()
    .describe(`How many lines to show (default and most ${READ_FILE_LINES}).`),
});

export const readFileTool: Tool<z.infer<typeof ReadFileInput>> = {
  name: "read_file",
  kind: "read",
  description:
    `Read a text file of the workspace. Lines come numbered ("<number>\\t<text>"), at most ` +
    `${READ_FILE_LINES} lines and ${READ_FILE_BYTES} bytes per call; use offset to read on. ` +
    "Binary files are refused.",
  input: ReadFileInput,
  async plan(raw, ctx) {
    const input = parseToolInput(ReadFileInput, raw);
    const target = await resolveExisting(ctx.workspace, input.path);
    return {
      title: `Read ${target.shown}`,
      approval: null,
      async execute(run) {
        const read = await readLines(target, input.offset ?? 1, input.limit ?? READ_FILE_LINES, {
          notRegular: `${target.shown} is not a regular file (use list_dir for folders)`,
          blockingForTests: run.testBlockingOpen === true,
        });
        return {
          status: "completed",
          output: render(read),
          summary: `Read ${read.lines.length} ${read.lines.length === 1 ? "line" : "lines"}`,
          exit_code: null,
          diff: null,
        };
      },
    };
  },
};

interface LinesRead {
  first: number;
  lines: string[];
  /** Why the listing stops before the file's end, if it does. */
  stop: "lines" | "bytes" | "long_line" | null;
  /** Whether lines follow the ones shown. */
  more: boolean;
}

async function readLines(
  target: WorkspacePath,
  offset: number,
  limit: number,
  options: OpenOptions,
): Promise<LinesRead> {
  // Never a blocking open: a FIFO or a device is refused before it is opened (regular-file.ts).
  const handle = await openRegularFile(target, options);
  try {
    return await scan(handle, target, offset, limit);
  } catch (error) {
    throw error instanceof ToolError ? error : fsToolError(error, target.shown);
  } finally {
    await handle.close();
  }
}

/** One pass over the file: lines before `offset` are counted, not kept. */
async function scan(
  handle: FileHandle,
  target: WorkspacePath,
  offset: number,
  limit: number,
): Promise<LinesRead> {
  const result: LinesRead = { first: offset, lines: [], stop: null, more: false };
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = 0;
  let lineNumber = 1;
  let pieces: Buffer[] = [];
  let kept = 0;
  let lineLength = 0;
  let used = 0;
  let full: LinesRead["stop"] = null;

  const finishLine = () => {
    if (lineNumber >= offset) {
      if (result.lines.length === limit) full = "lines";
      else if (used + lineLength <= READ_FILE_BYTES) {
        result.lines.push(Buffer.concat(pieces).toString("utf8").replace(/\n$/, ""));
        used += lineLength;
        if (result.lines.length === limit) full = "lines";
      } else if (result.lines.length === 0) {
        const cut = headBytes(Buffer.concat(pieces), READ_FILE_BYTES);
        result.lines.push(Buffer.from(cut).toString("utf8"));
        result.stop = "long_line";
        full = "long_line";
      } else full = "bytes";
    }
    lineNumber++;
    pieces = [];
    kept = 0;
    lineLength = 0;
  };

  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    if (position === 0 && looksBinary(data))
      throw new ToolError(`${target.shown} is a binary file`);
    position += bytesRead;
    let start = 0;
    while (start < data.length) {
      // Anything after the bound (a line that did not fit, or any byte past the limit) means
      // the listing stops before the end.
      if (full) {
        if (result.stop === null) result.stop = full;
        result.more = true;
        return result;
      }
      const newline = data.indexOf(10, start);
      const end = newline === -1 ? data.length : newline + 1;
      if (lineNumber >= offset && kept <= READ_FILE_BYTES) {
        const piece = data.subarray(start, Math.min(end, start + READ_FILE_BYTES + 1 - kept));
        pieces.push(Buffer.from(piece));
        kept += piece.length;
      }
      lineLength += end - start;
      start = end;
      if (newline !== -1) finishLine();
    }
  }
  if (lineLength > 0) finishLine();
  if (full === "bytes") {
    result.stop = "bytes";
    result.more = true;
  }
  if (offset > 1 && offset >= lineNumber) {
    throw new ToolError(
      `offset ${offset} is past the end of ${target.shown} (${lineNumber - 1} lines)`,
    );
  }
  return result;
}

function render(read: LinesRead): string {
  if (read.lines.length === 0) return "(empty file)";
  const last = read.first + read.lines.length - 1;
  const numbered = read.lines.map((line, i) => `${String(read.first + i).padStart(6)}\t${line}`);
  const next = `read on with offset ${last + 1}`;
  const note = {
    lines: `[showing lines ${read.first}-${last}; more lines follow: ${next}]`,
    bytes: `[showing lines ${read.first}-${last}, the ${READ_FILE_BYTES}-byte limit; ${next}]`,
    long_line: `[line ${last} is longer than ${READ_FILE_BYTES} bytes and was cut${read.more ? `; ${next}` : ""}]`,
  };
  return read.stop ? `${numbered.join("\n")}\n${note[read.stop]}` : numbered.join("\n");
}
