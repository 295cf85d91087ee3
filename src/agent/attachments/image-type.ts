/**
 * An image's format told by its first bytes (its "magic"), never by a name or a claim: PNG,
 * JPEG, GIF and WebP, the formats every provider of ours takes.
 */
import type { ImageMediaType } from "../../protocol/schemas/attachments.js";

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

/** The format of these bytes, or null when they are none of the four. */
export function imageTypeOf(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, JPEG)) return "image/jpeg";
  const head = Buffer.from(bytes.subarray(0, 12)).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.length === 12 && head.startsWith("RIFF") && head.slice(8) === "WEBP")
    return "image/webp";
  return null;
}

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return bytes.length >= magic.length && magic.every((byte, i) => bytes[i] === byte);
}
