/**
 * read_file: a text file's lines with their numbers, from `offset` (1-based), at most
 * READ_FILE_LINES lines and READ_FILE_BYTES bytes of the file's text. Binary files are refused.
 * The file is scanned in chunks, so a huge file (or a huge line) costs no more memory than the
 * bound. When the frontend offers reads (an ACP editor), the text is the editor's, unsaved
 * buffers included, with the same bounds (readHostLines).
 */
import { z } from "zod";
import { headBytes } from "../../protocol/text-cut.js";
import { resolveReadable } from "../skills/skill-reads.js";
import { type HostReader, readHostText, refuseIfNotRegular } from "./host-files.js";
import { type OpenOptions, openRegularFile } from "./regular-file.js";
import { looksBinary } from "./text-file.js";
import { parseToolInput, type Tool, ToolError } from "./tool.js";
import { fsToolError, type WorkspacePath } from "./workspace-path.js";

const READ_FILE_LINES = 2000;
const READ_FILE_BYTES = 256 * 1024;
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
    // A user skill's folder is readable too (docs/skills.md), never through the editor.
    const target = await resolveReadable(ctx, input.path);
    return {
      title: `Read ${target.shown}`,
      approval: null,
      async execute(run) {
        const offset = input.offset ?? 1;
        const limit = input.limit ?? READ_FILE_LINES;
        const notRegular = `${target.shown} is not a regular file (use list_dir for folders)`;
        const host = run.host?.readTextFile && !target.outside ? (run.host as HostReader) : null;
        const read = host
          ? await readHostLines(host, target, offset, limit, notRegular, run.signal)
          : await readLines(target, offset, limit, {
              notRegular,
              ...(run.readFileOpener ? { opener: run.readFileOpener } : {}),
            });
        return {
          status: "completed",
          output: render(read) + ((await run.folderInstructions?.(target.relative)) ?? ""),
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
  /** The number of the source's last line (set when the scan reached its end, `more` false). */
  total: number;
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
    const source: ChunkSource = async (chunk, position) =>
      (await handle.read(chunk, 0, CHUNK_BYTES, position)).bytesRead;
    const read = await scan(source, target, offset, limit, 1);
    if (offset > 1 && !read.more && offset > read.total)
      throw pastTheEnd(offset, target, read.total);
    return read;
  } catch (error) {
    throw error instanceof ToolError ? error : fsToolError(error, target.shown);
  } finally {
    await handle.close();
  }
}

/**
 * The editor's text (an unsaved buffer included; tool-host.ts): it is asked for the lines this
 * call may show and one more (whether more follow), and they are scanned with the same bounds
 * as a file. Past the end, it is asked again for the lines before `offset`, to count them.
 */
async function readHostLines(
  host: HostReader,
  target: WorkspacePath,
  offset: number,
  limit: number,
  notRegular: string,
  signal: AbortSignal,
): Promise<LinesRead> {
  await refuseIfNotRegular(target, notRegular);
  const text = await readHostText(host, target, { line: offset, limit: limit + 1 }, signal);
  const read = await scan(bufferSource(Buffer.from(text, "utf8")), target, offset, limit, offset);
  if (offset > 1 && read.lines.length === 0) {
    const before = await readHostText(host, target, { line: 1, limit: offset - 1 }, signal);
    throw pastTheEnd(offset, target, Math.min(countLines(before), offset - 1));
  }
  return read;
}

/** Lines as the scan counts them: a last line without a newline counts too. */
function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text === "" || text.endsWith("\n") ? lines : lines + 1;
}

function pastTheEnd(offset: number, target: WorkspacePath, lines: number): ToolError {
  return new ToolError(`offset ${offset} is past the end of ${target.shown} (${lines} lines)`);
}

/** Fills `chunk` from `position` on; returns how many bytes it put there (0 at the end). */
type ChunkSource = (chunk: Buffer, position: number) => Promise<number>;

function bufferSource(bytes: Buffer): ChunkSource {
  return async (chunk, position) => bytes.copy(chunk, 0, position, position + chunk.length);
}

/**
 * One pass over the text: lines before `offset` are counted, not kept. The source's first line
 * is line `firstLine` (1 for a file; the editor's answer starts at the line asked for).
 */
async function scan(
  source: ChunkSource,
  target: WorkspacePath,
  offset: number,
  limit: number,
  firstLine: number,
): Promise<LinesRead> {
  const result: LinesRead = { first: offset, lines: [], stop: null, more: false, total: 0 };
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = 0;
  let lineNumber = firstLine;
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
    const bytesRead = await source(chunk, position);
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
  result.total = lineNumber - 1;
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
