/**
 * An MCP tool's result as the model reads it (docs/mcp.md, "Results"): the text blocks as they
 * are, every other block as a short bracketed line (no provider of ours sends images in a tool
 * result, so an image is `[image: image/png, 12 KiB]`), `structuredContent` as JSON when there is
 * no content block, all bounded by `tool_output_bytes`: head, omission line, tail.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { clipChars } from "../../protocol/text-cut.js";
import { HeadTailCapture } from "../tools/shell-output.js";

type Block = CallToolResult["content"][number];

export function resultText(result: CallToolResult, toolOutputBytes: number): string {
  const parts = (result.content ?? []).map(blockText);
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const capture = new HeadTailCapture(toolOutputBytes);
  capture.push(parts.join("\n"));
  const text = capture.render(result.isError === true ? "[the tool reported an error]" : "");
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${safeMime(block.mimeType)}, ${sizeOf(block.data)}; not shown]`;
    case "resource_link":
      return `[resource link: ${oneLine(block.uri)}${block.name ? ` (${oneLine(block.name)})` : ""}]`;
    case "resource": {
      const resource = block.resource as { uri: string; text?: string; blob?: string };
      if (typeof resource.text === "string") return resource.text;
      return `[resource: ${oneLine(resource.uri)}, ${sizeOf(resource.blob ?? "")}; not shown]`;
    }
    default:
      return "[a content block of an unknown type]";
  }
}

/** The decoded size of a base64 text, in the unit a person reads. */
function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
  return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KiB`;
}

function safeMime(mime: string): string {
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(mime) ? mime : "unknown type";
}

function oneLine(text: string): string {
  return clipChars(text.replace(/\s+/g, " "), 200);
}
