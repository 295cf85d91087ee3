/**
 * The longest line `mc-agent acp` reads: 32 MiB, the SDK's own default bound, counted with a
 * line's CR when it ends in CRLF. The SDK ends the connection (and with it the agent, silently)
 * at a longer line; this stands in front of it so that such a line is answered like any other
 * line that is no JSON (`-32700`, docs/acp.md "Errors") and the next lines are read as usual.
 */
const ACP_LINE_BYTES = 32 * 1024 * 1024;

const LF = 0x0a;
/**
 * What replaces the rest of a line over the bound: a NUL and the line's end. A NUL is no JSON
 * anywhere (no white space outside strings, no raw control character inside one), so whatever
 * the line's first bytes were, the SDK answers it as a parse error.
 */
const CUT = Uint8Array.of(0x00, LF);

/** The SDK's bound to pass with this: one more byte than a line we let through can have. */
export const SDK_LINE_BYTES = ACP_LINE_BYTES + 1;

/**
 * The input bytes with every line over `maxBytes` cut: its first bytes up to the bound are
 * passed on as they come, then `CUT`, and the rest of it, up to its LF, is dropped as it
 * arrives. Nothing is held: memory stays the SDK's one line, however long the line sent.
 */
export function boundedLines(maxBytes = ACP_LINE_BYTES): TransformStream<Uint8Array, Uint8Array> {
  let lineBytes = 0;
  let dropping = false;
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      while (start < chunk.length) {
        const lf = chunk.indexOf(LF, start);
        const end = lf === -1 ? chunk.length : lf;
        if (!dropping) {
          const room = maxBytes - lineBytes;
          if (end - start > room) {
            if (room > 0) controller.enqueue(chunk.subarray(start, start + room));
            controller.enqueue(CUT);
            dropping = true;
          } else {
            controller.enqueue(chunk.subarray(start, lf === -1 ? end : lf + 1));
            lineBytes += end - start;
          }
        }
        if (lf === -1) break;
        // The line ended (its LF passed on, or CUT sent in its place).
        lineBytes = 0;
        dropping = false;
        start = lf + 1;
      }
    },
  });
}
