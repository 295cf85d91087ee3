/**
 * Cutting UTF-8 bytes at character boundaries, so a bounded text never ends or starts with half
 * a character (a continuation byte is 0b10xxxxxx).
 */

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** At most `limit` leading bytes of `bytes`, ending on a character boundary. */
export function headBytes(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let end = Math.max(0, limit);
  while (end > 0 && isContinuation(bytes[end])) end--;
  return bytes.subarray(0, end);
}

/** At most `limit` trailing bytes of `bytes`, starting on a character boundary. */
export function tailBytes(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let start = bytes.length - Math.max(0, limit);
  while (start < bytes.length && isContinuation(bytes[start])) start++;
  return bytes.subarray(start);
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
