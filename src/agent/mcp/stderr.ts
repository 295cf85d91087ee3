import type { Stream } from "node:stream";

/** Longest stderr line logged; the rest of it is dropped. */
const LINE_CHARS = 1000;

/**
 * A stdio server's stderr goes to our log at debug (`debug`, null below that level), a line at
 * a time, never to frames. Unlogged it is still read: a full pipe nobody reads would block the
 * server.
 */
export function pipeStderr(
  name: string,
  stderr: Stream | null,
  debug: ((line: string) => void) | null,
): void {
  if (!stderr) return;
  const readable = stderr as unknown as NodeJS.ReadableStream;
  if (!debug) {
    readable.on("data", () => {});
    return;
  }
  // node:readline at the first read, not with this module: a start that reads no such file before
  // its answer does not load it (2-4 ms; docs/acp.md, "Start-up").
  const lines = process.getBuiltinModule("node:readline").createInterface({
    input: readable,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  lines.on("line", (line) => debug(`mcp ${name} stderr: ${line.slice(0, LINE_CHARS)}`));
}
