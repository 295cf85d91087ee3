import type { ParamsOf } from "../protocol/methods.js";
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
  return joined(client, { id, index }, options);
}

/**
 * One record of a subagent's derived history, whole (`session.record` with `subagent_id`,
 * capability `subagents`): the stub `session.subagent_history` sends in place of a record over
 * a page, read as `readRecord` reads a session's own.
 */
export function readSubagentRecord(
  client: Caller,
  id: string,
  subagentId: string,
  index: number,
  options: CallOptions = {},
): Promise<SessionEvent> {
  return joined(client, { id, subagent_id: subagentId, index }, options);
}

async function joined(
  client: Caller,
  params: Omit<ParamsOf<"session.record">, "cursor">,
  options: CallOptions,
): Promise<SessionEvent> {
  try {
    return await joinRecord((cursor) =>
      client.call("session.record", withCursor(params, cursor), options),
    );
  } catch (error) {
    if (error instanceof RecordTextError)
      throw new ClientError("protocol_violation", error.message);
    throw error;
  }
}
