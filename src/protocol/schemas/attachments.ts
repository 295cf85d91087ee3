/**
 * turn.start's `attachments` (capability `attachments`; docs/turns.md, "Attachments"): images
 * the frontend sends with the prompt, inline (`data_base64`, as far as the 1 MiB frame allows)
 * or by `path` (any regular file the child can read: the frontend speaks for the user).
 */
import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";

export const ATTACHMENT_LIMITS = {
  /** At most this many images per turn.start. */
  images: 8,
  /** Each image at most this many bytes, decoded. */
  image_bytes: 5 * 1024 * 1024,
  /** The path's length bound (the system's own). */
  path_bytes: 4096,
  /**
   * A turn's context resends at most this many of the images earlier turns attached, the newest
   * (a turn's own images come on top): the bytes of a long conversation's images stay bounded.
   */
  replayed_images: 8,
} as const;

/** The image formats a provider of ours takes, told apart by their first bytes. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export const ImageMediaType = lazy(() => z.enum(IMAGE_MEDIA_TYPES));
export type ImageMediaType = Infer<typeof ImageMediaType>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;

/**
 * One image: inline, `{type, media_type, data_base64}` (standard padded base64), or by path,
 * `{type, path}`. One object with a rule rather than a union of two: both shapes share their
 * tag, and code generators fold an untagged union into one type anyway (docs/codegen.md).
 */
export const TurnAttachment = lazy(() =>
  z
    .strictObject({
      type: z.literal("image"),
      /** With `data_base64` only: the image's format, which its bytes must confirm. */
      media_type: ImageMediaType().optional(),
      /** Standard base64 (RFC 4648 section 4, padded); exactly one of it and `path`. */
      data_base64: z.string().min(4).regex(BASE64).optional(),
      /** Any regular file the child can read (relative: from its cwd); no NUL. */
      path: z
        .string()
        .min(1)
        .max(ATTACHMENT_LIMITS.path_bytes)
        .refine((path) => !path.includes("\0"), "no NUL")
        .optional(),
    })
    .refine(
      (image) =>
        image.path !== undefined
          ? image.data_base64 === undefined && image.media_type === undefined
          : image.data_base64 !== undefined && image.media_type !== undefined,
      "an image is {type, media_type, data_base64} or {type, path}",
    ),
);
export type TurnAttachment = Infer<typeof TurnAttachment>;

/**
 * How a history's `user_message` names an image it was sent with: by the SHA-256 of its bytes,
 * the name of its file under `MC_HOME/attachments/` (docs/store.md, "Attachments"). Never the
 * bytes themselves: `session.history` and listings carry this reference only.
 */
export const ImageReference = lazy(() =>
  z.strictObject({
    type: z.literal("image"),
    media_type: ImageMediaType(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int().min(1).max(ATTACHMENT_LIMITS.image_bytes),
  }),
);
export type ImageReference = Infer<typeof ImageReference>;
