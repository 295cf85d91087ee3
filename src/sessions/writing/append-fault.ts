import { write } from "node:fs";
import { promisify } from "node:util";

/**
 * A write fault that a test build injects into the session writer (MC_AGENT_TEST_APPEND_FAULT,
 * see server/test-switches.ts), where a real full disk (a small tmpfs) cannot be mounted. The
 * faulty append really writes the first half of its bytes, as a full disk may, and then:
 * `enospc` / `eio` fail with that error code; `short` reports the short count. So the
 * truncate-back is exercised on real partial bytes, not simulated.
 */
export interface AppendFault {
  kind: "enospc" | "eio" | "short";
  /** The record type whose every append fails (`session_meta` included). */
  recordType: string;
}

const KINDS = new Set(["enospc", "eio", "short"]);

/** `<kind>:<record type>`, e.g. `enospc:assistant_message`; anything else is no fault. */
export function parseAppendFault(raw: string | undefined): AppendFault | null {
  const match = /^([a-z]+):([a-z_]{1,64})$/.exec(raw ?? "");
  if (!match || !KINDS.has(match[1] as string)) return null;
  return { kind: match[1] as AppendFault["kind"], recordType: match[2] as string };
}

const writeAt = promisify(write);

/** One positional write of `data` at `position`; returns the bytes written (maybe short). */
export async function writeOnce(
  fd: number,
  data: Buffer,
  position: number,
  fault: AppendFault | null,
  recordType: string,
): Promise<number> {
  if (fault === null || fault.recordType !== recordType) {
    const { bytesWritten } = await writeAt(fd, data, 0, data.length, position);
    return bytesWritten;
  }
  const half = Math.floor(data.length / 2);
  const { bytesWritten } = await writeAt(fd, data, 0, half, position);
  if (fault.kind === "short") return bytesWritten;
  const code = fault.kind === "enospc" ? "ENOSPC" : "EIO";
  throw Object.assign(new Error(`injected ${code}`), { code });
}
