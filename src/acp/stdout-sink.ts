import { once } from "node:events";
import { log } from "../process/log.js";
import { normaliseLine } from "./wire-errors.js";

/**
 * The starter's answer to the first initialize (starter.ts): the SDK reads that initialize too
 * and answers it first of all it writes; that answer is not written again, and `answered`
 * releases the editor's next lines to the SDK (agent-input.ts).
 */
export interface Replayed {
  line: string;
  answered: () => void;
}

/**
 * stdout as the byte sink of the SDK's NDJSON stream: each line goes straight to the pipe (no
 * Node-to-web stream adapter in between; this is the first chunk's path, docs/benchmarks.md),
 * errors normalised (wire-errors.ts), and a full pipe holds the writer until it drains, so a
 * slow editor slows the turn instead of growing a buffer. `onGone`: stdout closed under us.
 */
export function stdoutSink(onGone: () => void, replayed?: Replayed): WritableStream<Uint8Array> {
  const out = process.stdout;
  let gone = false;
  let pending = replayed;
  out.on("error", () => {
    if (gone) return;
    gone = true;
    onGone();
  });
  return new WritableStream<Uint8Array>({
    async write(line) {
      if (pending) {
        const { line: sent, answered } = pending;
        pending = undefined;
        // The same function built both (initialize-answer.ts); a difference would be a bug,
        // and the editor already has its one answer to that ID.
        if (!Buffer.from(sent).equals(line))
          log("error", "the SDK's initialize answer differs from the starter's");
        answered();
        return;
      }
      if (gone) return;
      if (!out.write(normaliseLine(line)))
        await Promise.race([once(out, "drain"), once(out, "close")]);
    },
  });
}
