/**
 * The faults and pauses a test build injects (test-seam.ts builds them from MC_AGENT_TEST_*),
 * each as a production function wrapped from outside: the history writer's positional write,
 * the catalog cache's commit steps, read_file's opener, a credential file's atomic write. The
 * production paths they stand in for check for nothing: a normal child never builds these.
 */
import { existsSync, write, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { FileOpener } from "../agent/tools/tool.js";
import type { PositionalWrite } from "../sessions/writing/writer.js";
import { type CommitSteps, FILE_SYSTEM_COMMIT, writeFileAtomic } from "../store/atomic-write.js";
import type { CredentialUpdateOptions } from "../store/credentials.js";

/**
 * A write fault in session history appends (MC_AGENT_TEST_APPEND_FAULT), for machines where a
 * full tmpfs cannot be mounted: every append of `recordType` (`session_meta` included) really
 * writes the first half of its bytes, as a full disk may, and then `enospc` / `eio` fail with
 * that error code and `short` reports the short count. So the writer's truncate-back runs on
 * real partial bytes, not simulated ones.
 */
interface AppendFault {
  kind: "enospc" | "eio" | "short";
  recordType: string;
}

const APPEND_FAULT_KINDS = new Set(["enospc", "eio", "short"]);

/** `<kind>:<record type>`, e.g. `enospc:assistant_message`; anything else is no fault. */
export function parseAppendFault(raw: string | undefined): AppendFault | null {
  const match = /^([a-z]+):([a-z_]{1,64})$/.exec(raw ?? "");
  if (!match || !APPEND_FAULT_KINDS.has(match[1] as string)) return null;
  return { kind: match[1] as AppendFault["kind"], recordType: match[2] as string };
}

const writeAt = promisify(write);

/**
 * fs.write with `fault` on the appends of its record type. Which record an append writes is read
 * from its bytes: the writer's line is `{"type":"<type>",...}`, behind an LF that ends a last
 * line another writer left open.
 */
export function faultyPositionalWrite(fault: AppendFault): PositionalWrite {
  const marker = Buffer.from(`{"type":"${fault.recordType}",`);
  return async (fd, data, position) => {
    const start = data[0] === 10 ? 1 : 0;
    const faulty = data.subarray(start, start + marker.length).equals(marker);
    const length = faulty ? Math.floor(data.length / 2) : data.length;
    const { bytesWritten } = await writeAt(fd, data, 0, length, position);
    if (!faulty || fault.kind === "short") return bytesWritten;
    const code = fault.kind === "enospc" ? "ENOSPC" : "EIO";
    throw Object.assign(new Error(`injected ${code}`), { code });
  };
}

/**
 * A failure at the catalog cache's commit (MC_AGENT_TEST_COMMIT_FAULT), so that the uncertain
 * path runs for real: `folder_sync_fails` renames for real and then fails the folder fsync (the
 * new bytes are in place); `rename_outcome_unknown` fails the rename with EIO without renaming
 * (the old bytes are in place), as a network file system may.
 */
type CommitFault = "folder_sync_fails" | "rename_outcome_unknown";

export function faultyCommit(fault: CommitFault): CommitSteps {
  if (fault === "folder_sync_fails")
    return {
      ...FILE_SYSTEM_COMMIT,
      syncFolder: () => Promise.reject(new Error("injected folder fsync failure")),
    };
  return {
    ...FILE_SYSTEM_COMMIT,
    rename: () => {
      throw Object.assign(new Error("EIO"), { code: "EIO" });
    },
  };
}

/**
 * read_file's open as before issue 17 (MC_AGENT_TEST_BLOCKING_OPEN): blocking and unchecked, so
 * that a FIFO nobody writes holds a threadpool thread in the kernel for good, and the tests can
 * check that interrupt, shutdown and EOF still end the turn and the child within `cleanup_ms`.
 * The descriptor is still checked after (regular-file.ts).
 */
export const blockingOpener: FileOpener = (absolute) => open(absolute, "r");

/**
 * A credential write-back that pauses (MC_AGENT_TEST_CREDENTIAL_PAUSE, a folder) after the first
 * read and merge, before its first write: it creates `<folder>/paused` and waits for
 * `<folder>/go`, so that a test can have another process write the file right there (the
 * compare before the rename then sees it). One per refresh.
 */
export function pausedCredentialWrite(folder: string): CredentialUpdateOptions {
  let paused = false;
  return {
    write: async (path, bytes, mode, gate) => {
      if (!paused) {
        paused = true;
        writeFileSync(join(folder, "paused"), "");
        while (!existsSync(join(folder, "go"))) await new Promise((r) => setTimeout(r, 10));
      }
      return writeFileAtomic(path, bytes, mode, gate);
    },
  };
}
