import { isRecordStub, joinRecord } from "../protocol/record-text.js";
import type { SessionEvent, SessionHistoryResult } from "../protocol/schemas/sessions.js";
import type { EngineLink } from "./engine-link.js";
import { replayUpdates } from "./history-replay.js";
import type { AcpSession } from "./session.js";

/**
 * `session/load`'s replay: every page of the saved history, in order, each record's updates
 * sent (and awaited, so a slow editor slows the replay instead of growing a buffer) before the
 * next page is read. Nothing caps the number of pages: each page is bounded (100 records,
 * 32 KiB), memory holds one page and at most one whole record (8 MiB), and the total is the
 * history `session.open` has just read whole to validate it, so a long session loads whole
 * rather than failing or stopping at an arbitrary count. A record too large for a page comes
 * as its stub and is read whole through `session.record` (docs/turns.md), then replayed as any
 * other (history-replay.ts splits its text into chunks).
 */
export async function replayHistory(session: AcpSession): Promise<void> {
  let cursor: string | null = null;
  for (;;) {
    const page: SessionHistoryResult = await session.engine.request("session.history", {
      id: session.id,
      ...(cursor ? { cursor } : {}),
    });
    for (const event of page.events) {
      const record: SessionEvent = isRecordStub(event)
        ? await wholeRecord(session.engine, session.id, event.index)
        : event;
      for (const update of replayUpdates(session.cwd, record)) await session.update(update);
    }
    if (page.complete || page.cursor === null) return;
    cursor = page.cursor;
  }
}

/** A record too large for a page, read whole (at most 8 MiB) through `session.record`. */
function wholeRecord(engine: EngineLink, id: string, index: number): Promise<SessionEvent> {
  return joinRecord((cursor) =>
    engine.request("session.record", cursor ? { id, index, cursor } : { id, index }),
  );
}
