import type { ContentBlock } from "@agentclientprotocol/sdk";
import { acpError } from "./errors.js";

/**
 * An ACP prompt as our turn's one input text: text blocks as they are, a resource link as its
 * name and URI, embedded context (a file the editor attached) as its text inside a marked block
 * the model can tell from the user's words. Images and audio are not advertised (no provider of
 * ours takes them through `turn.start`), so a prompt carrying one is refused, changing nothing.
 */
export function promptText(blocks: ContentBlock[]): string {
  const parts: string[] = [];
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
      default:
        throw acpError("invalid_params", "Only text and embedded text context are supported.");
    }
  }
  const text = parts.join("\n\n");
  if (text.trim() === "") throw acpError("invalid_params", "The prompt is empty.");
  return text;
}
