import { once } from "node:events";
import { normaliseLine } from "./wire-errors.js";

/**
 * stdout as the byte sink of the SDK's NDJSON stream: each line goes straight to the pipe (no
 * Node-to-web stream adapter in between; this is the first chunk's path, docs/benchmarks.md),
 * errors normalised (wire-errors.ts), and a full pipe holds the writer until it drains, so a
 * slow editor slows the turn instead of growing a buffer. `onGone`: stdout closed under us.
 */
export function stdoutSink(onGone: () => void): WritableStream<Uint8Array> {
  const out = process.stdout;
  let gone = false;
  out.on("error", () => {
    if (gone) return;
    gone = true;
    onGone();
  });
  return new WritableStream<Uint8Array>({
    async write(line) {
      if (gone) return;
      if (!out.write(normaliseLine(line)))
        await Promise.race([once(out, "drain"), once(out, "close")]);
    },
  });
}
