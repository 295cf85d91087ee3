/**
 * Why an append to a session history was refused or failed (the session writer's own errors;
 * the turn engine maps `HistoryWriteFailed` to the `history_write_failed` turn failure). Their
 * messages are fixed: no path, no record content.
 */

/** The append did not happen: the history ends with its last whole record, as before. */
export class HistoryWriteFailed extends Error {
  constructor(
    /** `io`: a failed or short write or fsync (ENOSPC, EIO, ...), truncated back.
     *  `changed`: the history or its lock changed under the writer; nothing was written.
     *  `unrecoverable`: the truncate-back itself failed; the writer refuses every later append. */
    readonly reason: "io" | "changed" | "unrecoverable",
  ) {
    super(`the session history could not be written (${reason})`);
    this.name = "HistoryWriteFailed";
  }
}

/** A record whose line would exceed RECORD_BYTES (8 MiB): never written, nothing touched. */
export class RecordTooLarge extends Error {
  constructor(readonly bytes: number) {
    super("a history record exceeds the record byte limit");
    this.name = "RecordTooLarge";
  }
}

/** A record that does not match its turn-record schema: a bug in the caller, nothing written. */
export class InvalidTurnRecord extends Error {
  constructor(readonly recordType: string) {
    super(`a ${recordType} record does not match its schema`);
    this.name = "InvalidTurnRecord";
  }
}
