import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ParamsOf } from "../protocol/methods.js";
import { IMAGE_MEDIA_TYPES } from "../protocol/schemas/attachments.js";
import { acpError } from "./errors.js";

type Attachments = NonNullable<ParamsOf<"turn.start">["attachments"]>;

/** What a prompt of images alone says in words (turn.start's input is never empty). */
export const IMAGE_ONLY_INPUT = "(See the attached image.)";

/**
 * An ACP prompt as our turn's input: text blocks as they are, a resource link as its name and
 * URI, embedded context (a file the editor attached) as its text inside a marked block the
 * model can tell from the user's words, and image blocks as turn.start's `attachments` (an
 * inline image as `data_base64`, one given only by a `file://` URI as its `path`). The child
 * checks each image (docs/turns.md, "Attachments"); audio and binary resources are refused,
 * changing nothing.
 */
export function promptInput(blocks: ContentBlock[]): { text: string; attachments: Attachments } {
  const parts: string[] = [];
  const attachments: Attachments = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[${block.name}](${block.uri})`);
        break;
      case "resource":
        if (!("text" in block.resource))
          throw acpError("invalid_params", "Binary embedded resources are not supported.");
        parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
        break;
      case "image":
        attachments.push(imageOf(block));
        break;
      default:
        throw acpError(
          "invalid_params",
          "Only text, images and embedded text context are supported.",
        );
    }
  }
  const text = parts.join("\n\n");
  if (text.trim() === "" && attachments.length === 0)
    throw acpError("invalid_params", "The prompt is empty.");
  return { text: text.trim() === "" ? IMAGE_ONLY_INPUT : text, attachments };
}

function imageOf(block: Extract<ContentBlock, { type: "image" }>): Attachments[number] {
  if (block.data === "" && block.uri?.startsWith("file://"))
    return { type: "image", path: decodeURIComponent(new URL(block.uri).pathname) };
  const media = IMAGE_MEDIA_TYPES.find((type) => type === block.mimeType);
  if (!media) throw acpError("invalid_params", "Images must be PNG, JPEG, GIF or WebP.");
  return { type: "image", media_type: media, data_base64: block.data };
}
