import { type BigIntStats, fstatSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { sameFile } from "../../store/inventory.js";
import { closeQuietly } from "../../store/safe-open.js";
import type { CwdMatcher } from "../history/cwd-rule.js";
import { HistoryScan } from "../history/history-scan.js";
import { RECORD_BYTES } from "../records/facts.js";
import { RecordReader } from "../records/record-reader.js";

/**
 * The one primary history a discovery scan may hold open between steps: its descriptor, its
 * reader state (8 KiB buffer, at most one partial record) and the signature it had when it
 * was enumerated. Any change to the file while it is held makes the scan stale.
 */
export class HeldHistory {
  readonly scan: HistoryScan;
  private fd: number | null;

  constructor(
    readonly id: string,
    fd: number,
    readonly enumerated: BigIntStats,
    cwd: CwdMatcher,
    buffer: Buffer,
    /** A wall-clock reading taken before `enumerated` (the verdict cache's ctime margin). */
    readonly checkedAtNs: bigint,
  ) {
    this.fd = fd;
    // The enumerated length ends the read: finishing compares the signature (length included),
    // so a file that grew meanwhile is stale rather than cut short.
    const reader = new RecordReader(fd, RECORD_BYTES, 0, buffer, Number(enumerated.size));
    this.scan = new HistoryScan(reader, cwd);
  }

  /** Throws `stale_revision` if the held file is no longer what was enumerated. */
  assertUnchanged(): void {
    if (this.fd === null) return;
    if (!sameFile(fstatSync(this.fd, { bigint: true }), this.enumerated))
      throw new ProtocolError("stale_revision");
  }

  close(): void {
    closeQuietly(this.fd);
    this.fd = null;
  }
}
