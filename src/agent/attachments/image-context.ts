/**
 * Images between the history, the store and the context (docs/store.md, "Attachments"): a
 * turn's own images as its `user_message` record names them and as its context item carries
 * them; a replayed `user_message`'s references, filled from the attachment store before the
 * first model call (a file the store no longer has stays null: image-parts.ts says so in text).
 */
import { ATTACHMENT_LIMITS, ImageReference } from "../../protocol/schemas/attachments.js";
import { readAttachment } from "../../store/attachment-store.js";
import type { ContextItem, ImagePart } from "../providers/provider.js";
import type { PreparedImage } from "./prepare.js";

/** The `attachments` of the turn's `user_message` record: references, never bytes. */
export function imageReferences(images: readonly PreparedImage[]): ImageReference[] {
  return images.map((image) => ({
    type: "image",
    media_type: image.media_type,
    sha256: image.sha256,
    bytes: image.bytes.length,
  }));
}

/** The turn's own images as its context item carries them. */
export function imageParts(images: readonly PreparedImage[]): ImagePart[] {
  return images.map((image) => ({
    media_type: image.media_type,
    sha256: image.sha256,
    bytes: image.bytes.length,
    data_base64: image.bytes.toString("base64"),
  }));
}

/** A replayed record's references as parts still to fill (data null); none when it has none. */
export function referencedParts(attachments: unknown): { images?: ImagePart[] } {
  if (!Array.isArray(attachments) || attachments.length === 0) return {};
  const images: ImagePart[] = [];
  for (const value of attachments) {
    const parsed = ImageReference().safeParse(value);
    if (parsed.success) images.push({ ...parsed.data, data_base64: null });
  }
  return images.length > 0 ? { images } : {};
}

/**
 * Fills the replayed images from the store, newest first, one read per distinct image: at most
 * `replayed_images` distinct ones; older ones stay null, marked `omitted` (image-parts.ts says
 * so in text), so a long conversation's images never all sit in memory at once.
 */
export async function loadReplayedImages(
  home: string,
  items: readonly ContextItem[],
): Promise<void> {
  const read = new Map<string, Promise<string | null>>();
  for (const item of [...items].reverse()) {
    if (item.kind !== "user" || !item.images) continue;
    for (const image of [...item.images].reverse()) {
      if (image.data_base64 !== null) continue;
      let data = read.get(image.sha256);
      if (!data && read.size >= ATTACHMENT_LIMITS.replayed_images) {
        image.omitted = true;
        continue;
      }
      if (!data) {
        data = readAttachment(home, image.sha256, ATTACHMENT_LIMITS.image_bytes).then(
          (bytes) => bytes?.toString("base64") ?? null,
        );
        read.set(image.sha256, data);
      }
      image.data_base64 = await data;
    }
  }
}
