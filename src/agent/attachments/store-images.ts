/**
 * A turn's images into the attachment store around the `user_message` that names them
 * (docs/store.md, "Attachments"): kept before it is appended, so that a history never names a
 * file the store lacks, and kept again after, so that a deletion's reclaim running meanwhile
 * (store/attachment-store.ts) cannot take it away for good. A store that cannot be written
 * ends the turn as a history that cannot be: `history_write_failed`.
 */
import type { TurnRecordBody } from "../../sessions/records/turn-records.js";
import { keepAttachment } from "../../store/attachment-store.js";
import { TurnWriteFailed } from "../engine.js";
import type { PreparedImage } from "./prepare.js";

type Record = (body: TurnRecordBody, sync?: boolean) => Promise<void>;

export function keepingImages(
  home: string,
  images: readonly PreparedImage[],
  record: Record,
): Record {
  if (images.length === 0) return record;
  const keepAll = async () => {
    try {
      for (const image of images) await keepAttachment(home, image.sha256, image.bytes);
    } catch {
      throw new TurnWriteFailed();
    }
  };
  return async (body, sync) => {
    const names = body.type === "user_message" && body.attachments !== undefined;
    if (names) await keepAll();
    await record(body, sync);
    if (names) await keepAll();
  };
}
