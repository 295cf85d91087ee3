import { writeSync } from "node:fs";

/**
 * What a starter that wrote an answer before the real reader of stdout loaded must note for it:
 * whether stdout failed (EPIPE) or closed under that answer, which may happen before the
 * loaded code's own writer listens. Used by both starters (src/boot/starter.ts for the stdio
 * child, src/acp/starter.ts for the ACP agent).
 */
export interface OutputWatch {
  /** Whether stdout failed or closed under the starter's answer: the reader is gone. */
  outputGone: boolean;
  /** Removes the starter's own stdout listeners, once the loaded writer listens. */
  stopWatching?: () => void;
}

/** Notes on `watch` whether stdout goes away from now on, until `watch.stopWatching()`. */
export function watchOutput(watch: OutputWatch): void {
  const gone = () => {
    watch.outputGone = true;
  };
  process.stdout.on("error", gone);
  process.stdout.on("close", gone);
  watch.stopWatching = () => {
    process.stdout.removeListener("error", gone);
    process.stdout.removeListener("close", gone);
  };
}

/**
 * Writes a starter's answer to fd 1 directly, whole, before anything has made `process.stdout`
 * (a stream whose making costs what early-input.ts says). A reader gone (EPIPE) is noted on
 * `watch`; a descriptor that takes no more now (non-blocking, full) gets the rest through the
 * stream, watched as before. Bytes written this way precede anything the stream writes later.
 */
export function writeAnswer(watch: OutputWatch, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EAGAIN") {
      watch.outputGone = true;
      return;
    }
    watchOutput(watch);
    process.stdout.write(bytes.subarray(written));
  }
}
