import {
  isRecordStub,
  joinRecord,
  RECORD_TEXT_BYTES,
  RecordTextError,
} from "../protocol/record-text.js";
import type { SessionEvent } from "../protocol/schemas/sessions.js";
import type { Caller } from "./caller.js";
import type { CallOptions } from "./connection.js";
import { ClientError } from "./errors.js";
import { withCursor } from "./pager.js";

export { isRecordStub, RECORD_TEXT_BYTES };

/**
 * One history record, whole, through `session.record`: its chunks joined (at most 8 MiB) and
 * parsed. A history that changes between chunks fails with the child's `stale_revision`; read it
 * again from `session.history`. Chunks that do not make one record are `protocol_violation`.
 */
export async function readRecord(
  client: Caller,
  id: string,
  index: number,
  options: CallOptions = {},
): Promise<SessionEvent> {
  try {
    return await joinRecord((cursor) =>
      client.call("session.record", withCursor({ id, index }, cursor), options),
    );
  } catch (error) {
    if (error instanceof RecordTextError)
      throw new ClientError("protocol_violation", error.message);
    throw error;
  }
}
