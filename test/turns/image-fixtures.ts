import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame, TestChild } from "../helpers/child.js";
import { TURN_CAPS } from "./turn-harness.js";

/** What an image-sending frontend negotiates. */
export const IMAGE_CAPS = [...TURN_CAPS, "attachments"];

/** A real 1x1 PNG (its first bytes are PNG's signature). */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
export const PNG_BASE64 = PNG.toString("base64");

/** A JPEG's first bytes and filler up to `size` bytes (providers are loopback servers). */
export function jpegOf(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x41);
  bytes.set([0xff, 0xd8, 0xff, 0xe0], 0);
  return bytes;
}

export function writeImage(folder: string, name: string, bytes: Buffer): string {
  const path = join(folder, name);
  writeFileSync(path, bytes);
  return path;
}

let counter = 0;

/** Sends a turn.start with attachments; resolves with its terminal frame. */
export function startImageTurn(
  child: TestChild,
  input: string,
  attachments: unknown[],
): { id: string; response: Promise<Frame> } {
  const id = `img-${++counter}`;
  const response = child.waitFor((f) => f.id === id, 60_000);
  child.send({ id, method: "turn.start", params: { input, attachments } });
  return { id, response };
}
