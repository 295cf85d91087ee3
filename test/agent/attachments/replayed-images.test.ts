/**
 * The images a turn resends from earlier turns (docs/store.md, "Attachments"): the newest
 * `replayed_images` distinct ones are read from a real attachment store; older ones are not
 * read, stay without bytes and are marked, so the model gets a note instead. At the bound all
 * are resent; one past it the oldest is the one left out.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadReplayedImages } from "../../../src/agent/attachments/image-context.js";
import { splitImages } from "../../../src/agent/attachments/image-parts.js";
import type { ContextItem } from "../../../src/agent/providers/provider.js";
import { ATTACHMENT_LIMITS } from "../../../src/protocol/schemas/attachments.js";
import { keepAttachment, sha256Of } from "../../../src/store/attachment-store.js";

const home = mkdtempSync(join(tmpdir(), "mc-replayed-images-"));
after(() => rmSync(home, { recursive: true, force: true }));

/** `count` distinct small PNG-headed images in the store, one user turn each, oldest first. */
async function turnsWithImages(count: number): Promise<ContextItem[]> {
  const items: ContextItem[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from(`image ${count}-${i}`),
    ]);
    const sha256 = sha256Of(bytes);
    await keepAttachment(home, sha256, bytes);
    const image = { media_type: "image/png", sha256, bytes: bytes.length, data_base64: null };
    items.push({ kind: "user", text: `turn ${i}`, images: [image] });
    items.push({ kind: "assistant", text: "seen", model: "demo/demo-1" });
  }
  return items;
}

const imagesOf = (items: ContextItem[]) =>
  items.flatMap((item) => (item.kind === "user" ? (item.images ?? []) : []));

describe("replayed images: the newest replayed_images are resent", () => {
  const bound = ATTACHMENT_LIMITS.replayed_images;

  it("at the bound every image is read back", async () => {
    const items = await turnsWithImages(bound);
    await loadReplayedImages(home, items);
    for (const image of imagesOf(items)) {
      assert.equal(typeof image.data_base64, "string");
      assert.equal(image.omitted, undefined);
    }
  });

  it("one past it the oldest is not read, and the model is told why", async () => {
    const items = await turnsWithImages(bound + 1);
    await loadReplayedImages(home, items);
    const [oldest, ...newer] = imagesOf(items);
    assert.equal(oldest?.data_base64, null);
    assert.equal(oldest?.omitted, true);
    for (const image of newer) assert.equal(typeof image.data_base64, "string");
    const { present, notes } = splitImages(oldest ? [oldest] : []);
    assert.equal(present.length, 0);
    assert.match(
      notes[0] ?? "",
      new RegExp(`not resent: a conversation resends its last ${bound} images`),
    );
  });
});
