/**
 * Splits text read in chunks (a child's stdout) into its LF-terminated lines, searching each
 * chunk once: the part of a line that came in earlier chunks is kept in pieces and joined once,
 * when its LF comes. The harness searched its whole buffer again at each chunk before, which is
 * quadratic in a line's length: a 600 MB one-line answer (Codex's `thread/resume` of a 1 GB
 * rollout, bench/peer-resume.ts) never finished.
 */
export class LineSplitter {
  /** The current line's text from earlier chunks, in order. */
  private pieces: string[] = [];

  /** The lines `chunk` completes (without their LF), in order. */
  push(chunk: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let lf = chunk.indexOf("\n"); lf !== -1; lf = chunk.indexOf("\n", start)) {
      const tail = chunk.slice(start, lf);
      if (this.pieces.length === 0) lines.push(tail);
      else {
        this.pieces.push(tail);
        lines.push(this.pieces.join(""));
        this.pieces = [];
      }
      start = lf + 1;
    }
    if (start < chunk.length) this.pieces.push(chunk.slice(start));
    return lines;
  }
}
