/**
 * An image of a user message as each wire format sends it (docs/providers.md, "Images"): Chat
 * Completions an `image_url` part with a data URL, Responses an `input_image` item part with
 * one, Messages an `image` block with a base64 source. The images come before the message's
 * text, as Anthropic advises and the OpenAI formats accept. An image the attachment store no
 * longer has (removed by hand, or reclaimed under a fork made while its source was deleted)
 * goes as a text note instead: the turn still runs, and the model is told an image was there.
 */
import { ATTACHMENT_LIMITS } from "../../protocol/schemas/attachments.js";
import type { ImagePart } from "../providers/provider.js";

/** `data:image/png;base64,...` */
export function dataUrl(image: ImagePart & { data_base64: string }): string {
  return `data:${image.media_type};base64,${image.data_base64}`;
}

/** What the model reads in place of an image the store no longer has. */
export function missingImageNote(image: ImagePart): string {
  const why = image.omitted
    ? `not resent: a conversation resends its last ${ATTACHMENT_LIMITS.replayed_images} images`
    : "it is no longer available";
  return `[An image (${image.media_type}, ${Math.ceil(image.bytes / 1024)} KiB) was attached here; ${why}.]`;
}

/** The images with their bytes, and the notes for those without, in order. */
export function splitImages(images: readonly ImagePart[] | undefined): {
  present: (ImagePart & { data_base64: string })[];
  notes: string[];
} {
  const present: (ImagePart & { data_base64: string })[] = [];
  const notes: string[] = [];
  for (const image of images ?? []) {
    if (image.data_base64 === null) notes.push(missingImageNote(image));
    else present.push(image as ImagePart & { data_base64: string });
  }
  return { present, notes };
}

/** The message's text with the notes of missing images before it. */
export function textWithNotes(text: string, notes: readonly string[]): string {
  return notes.length === 0 ? text : [...notes, text].join("\n\n");
}
