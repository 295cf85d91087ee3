import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { keepAttachment, reclaimAttachment } from "../../src/store/attachment-store.js";
import { text } from "../fixtures/chat-completions-server.js";
import { IMAGE_CAPS, jpegOf, PNG, PNG_BASE64, startImageTurn } from "../turns/image-fixtures.js";
import { type TurnWorld, turnWorld } from "../turns/turn-harness.js";

// session.delete reclaims the images no other history names (docs/store.md, "Attachments").

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** As if the turns ran long ago: no keep is in progress (docs/store.md, "Reclaiming"). */
function age(store: string): void {
  const past = new Date(Date.now() - 3_600_000);
  for (const name of readdirSync(store)) utimesSync(join(store, name), past, past);
}

describe("session.delete and the attachment store", () => {
  test("deleting a session removes its images that no other history names, and keeps the shared one", async () => {
    world = await turnWorld({ capabilities: [...IMAGE_CAPS, "session.manage"] });
    const { child, server, box } = world;
    const store = join(box.home, "attachments");
    const jpeg = jpegOf(4096);
    const inline = (bytes: Buffer, media_type: string) => ({
      type: "image",
      media_type,
      data_base64: bytes.toString("base64"),
    });
    const a = (await child.call("session.create", {})).session.id as string;
    server.reply(text("Two."));
    const first = await startImageTurn(child, "Both", [
      inline(PNG, "image/png"),
      inline(jpeg, "image/jpeg"),
    ]).response;
    assert.equal(first.result?.status, "completed");
    const b = (await child.call("session.create", {})).session.id as string;
    server.reply(text("One."));
    const second = await startImageTurn(child, "The dot", [
      { type: "image", media_type: "image/png", data_base64: PNG_BASE64 },
    ]).response;
    assert.equal(second.result?.status, "completed");
    assert.deepEqual(readdirSync(store).sort(), [sha(PNG), sha(jpeg)].sort());
    age(store);
    await child.call("session.delete", { id: a });
    assert.deepEqual(readdirSync(store), [sha(PNG)], "the JPEG went; the PNG B names stayed");
    await child.call("session.delete", { id: b });
    assert.deepEqual(readdirSync(store), [], "the last history naming it gone: reclaimed");
  });

  test("a file kept since the reclaim began is put back; one nobody kept is removed", async () => {
    const home = mkdtempSync(join(tmpdir(), "mc-reclaim-"));
    try {
      const name = sha(PNG);
      const since = Date.now() - 2000;
      await keepAttachment(home, name, PNG);
      assert.equal(await reclaimAttachment(home, name, since), false, "kept during the scan");
      assert.ok(existsSync(join(home, "attachments", name)));
      assert.equal(await reclaimAttachment(home, name, Date.now() + 60_000), true);
      assert.equal(existsSync(join(home, "attachments", name)), false);
      // Nothing left aside either way.
      assert.deepEqual(readdirSync(join(home, "attachments")), []);
      // A keep after the removal writes the file anew.
      await keepAttachment(home, name, PNG);
      assert.ok(existsSync(join(home, "attachments", name)));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
