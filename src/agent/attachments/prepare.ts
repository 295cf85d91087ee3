/**
 * turn.start's `attachments` checked and read before anything else of the turn happens
 * (docs/turns.md, "Attachments"): each image decoded (inline) or read (by path), at most 5 MiB,
 * and a PNG, JPEG, GIF or WebP by its first bytes (an inline image's `media_type` must say the
 * same). A refusal is `invalid_params` naming the attachment by its position, never a path.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import {
  ATTACHMENT_LIMITS,
  type ImageMediaType,
  type TurnAttachment,
} from "../../protocol/schemas/attachments.js";
import { sha256Of } from "../../store/attachment-store.js";
import { imageTypeOf } from "./image-type.js";

/** An image ready for the store, the history and the provider. */
export interface PreparedImage {
  media_type: ImageMediaType;
  sha256: string;
  bytes: Buffer;
}

/** Format names for messages (a media type's slash reads as a path to a message checker). */
const NAMES: Record<ImageMediaType, string> = {
  "image/png": "a PNG image",
  "image/jpeg": "a JPEG image",
  "image/gif": "a GIF image",
  "image/webp": "a WebP image",
};

const LIMIT_MIB = ATTACHMENT_LIMITS.image_bytes / (1024 * 1024);

export async function prepareAttachments(
  attachments: readonly TurnAttachment[],
  cwd: string,
): Promise<PreparedImage[]> {
  const images: PreparedImage[] = [];
  for (const [index, attachment] of attachments.entries()) {
    const position = index + 1;
    const bytes =
      attachment.path === undefined
        ? decoded(attachment.data_base64 ?? "", position)
        : await readImageFile(attachment.path, cwd, position);
    const type = imageTypeOf(bytes);
    if (type === null)
      throw refused(position, "is not a PNG, JPEG, GIF or WebP image (by its first bytes)");
    if (attachment.media_type !== undefined && attachment.media_type !== type)
      throw refused(
        position,
        `is ${NAMES[type]}, but its media_type says ${NAMES[attachment.media_type]}`,
      );
    images.push({ media_type: type, sha256: sha256Of(bytes), bytes });
  }
  return images;
}

function decoded(base64: string, position: number): Buffer {
  // The schema checked the alphabet and padding; the length bounds the decoded size exactly.
  if ((base64.length / 4) * 3 > ATTACHMENT_LIMITS.image_bytes + 2) throw tooLarge(position);
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length > ATTACHMENT_LIMITS.image_bytes) throw tooLarge(position);
  return bytes;
}

/**
 * Any regular file the child can read (the frontend speaks for the user; the model cannot add
 * attachments), relative paths from the child's cwd. Opened without blocking (a FIFO is
 * refused, never waited on) and read at most one byte past the bound.
 */
async function readImageFile(path: string, cwd: string, position: number): Promise<Buffer> {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw refused(position, "cannot be read (missing, or not allowed)");
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refused(position, "is not a regular file");
    if (stats.size > ATTACHMENT_LIMITS.image_bytes) throw tooLarge(position);
    const buffer = Buffer.alloc(Math.min(stats.size + 1, ATTACHMENT_LIMITS.image_bytes + 1));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > ATTACHMENT_LIMITS.image_bytes) throw tooLarge(position);
    // It grew between the stat and the read: not the file that was checked.
    if (filled > stats.size) throw refused(position, "changed while it was read");
    return buffer.subarray(0, filled);
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw refused(position, "cannot be read");
  } finally {
    await handle.close();
  }
}

function tooLarge(position: number): ProtocolError {
  return refused(position, `is over ${LIMIT_MIB} MiB`);
}

function refused(position: number, why: string): ProtocolError {
  return new ProtocolError("invalid_params", `Attachment ${position} ${why}; nothing was sent.`);
}
