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
