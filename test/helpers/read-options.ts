import type { RecordReadOptions } from "../../src/sessions/records/facts.js";

/** A reader's options for a unit test, with the defaults a listing reads with. */
export function readOptions(
  keepEventBytes = 0,
  wantUserLine = true,
  keepValue = false,
): RecordReadOptions {
  return { keepEventBytes, wantUserLine, keepValue };
}

/**
 * The documented bounds of the loop's parse (docs/store.md "Cold reads", docs/extensions.md): a
 * record over OFF_THREAD_BYTES, or one with more than LOOP_OPENERS `[` and `{`, is parsed on the
 * worker thread (src/sessions/records/read-facts.ts).
 */
export const OFF_THREAD_BYTES = 256 * 1024;
export const LOOP_OPENERS = 10_000;
