import type { RecordReadOptions } from "../../src/sessions/records/facts.js";

/** A reader's options for a unit test, with the defaults a listing reads with. */
export function readOptions(
  keepEventBytes = 0,
  wantUserLine = true,
  keepValue = false,
): RecordReadOptions {
  return { keepEventBytes, wantUserLine, keepValue };
}
