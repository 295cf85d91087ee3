import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import {
  IMAGE_CAPS,
  jpegOf,
  PNG,
  PNG_BASE64,
  startImageTurn,
  writeImage,
} from "./image-fixtures.js";
import { mkfifo } from "./lifecycle-fixtures.js";
import { type TurnWorld, turnWorld, type WorldOptions } from "./turn-harness.js";

// Images in a prompt (issue 43 item 4; docs/turns.md, "Attachments"), over Chat Completions.

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const MIB = 1024 * 1024;

async function imageWorld(models?: WorldOptions["models"]) {
  world = await turnWorld({ capabilities: IMAGE_CAPS, ...(models ? { models } : {}) });
  const { session } = await world.child.call("session.create", {});
  return { world, id: session.id as string };
}

function historyLines(box: TurnWorld["box"], id: string): Record<string, unknown>[] {
  return readFileSync(join(box.home, "sessions", `${id}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("turns: images in a prompt (Chat Completions)", () => {
  test("an inline PNG and a 2 MiB JPEG by path reach the server as image_url data URLs, byte for byte", async () => {
    const { world: w, id } = await imageWorld();
    const jpeg = jpegOf(2 * MIB);
    const path = writeImage(w.box.root, "shot.jpg", jpeg);
    w.server.reply(text("A red dot and a photo."));
    const turn = startImageTurn(w.child, "What is in these?", [
      { type: "image", media_type: "image/png", data_base64: PNG_BASE64 },
      { type: "image", path },
    ]);
    const frame = await turn.response;
    assert.equal(frame.result?.status, "completed", JSON.stringify(frame.error));
    const expected = JSON.stringify({
      role: "user",
      content: [
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        {
          type: "image_url",
          image_url: { url: `data:image/jpeg;base64,${jpeg.toString("base64")}` },
        },
        { type: "text", text: "What is in these?" },
      ],
    });
    assert.ok(w.server.requests[0]?.raw.includes(expected), "the user message, byte for byte");
    // The history names the images by reference; the store holds their bytes.
    const user = historyLines(w.box, id).find((r) => r.type === "user_message");
    assert.deepEqual(user?.attachments, [
      { type: "image", media_type: "image/png", sha256: sha(PNG), bytes: PNG.length },
      { type: "image", media_type: "image/jpeg", sha256: sha(jpeg), bytes: jpeg.length },
    ]);
    const history = readFileSync(join(w.box.home, "sessions", `${id}.jsonl`), "utf8");
    assert.ok(!history.includes(PNG_BASE64) && history.length < 10_000, "no bytes inline");
    const store = join(w.box.home, "attachments");
    assert.deepEqual(readFileSync(join(store, sha(PNG))), PNG);
    assert.deepEqual(readFileSync(join(store, sha(jpeg))), jpeg);
    // session.history and the listing carry the reference only, never image bytes.
    const page = JSON.stringify(await w.child.call("session.history", { id }));
    assert.ok(page.includes(sha(jpeg)) && !page.includes(PNG_BASE64));
    assert.ok(!page.includes(jpeg.subarray(0, 3000).toString("base64")));
    const list = JSON.stringify(await w.child.call("session.list", {}));
    assert.ok(!list.includes(PNG_BASE64) && list.length < 10_000);
  });

  test("a reopened session's next turn resends the image from the attachment store", async () => {
    const { world: w, id } = await imageWorld();
    w.server.reply(text("A dot."));
    const first = await startImageTurn(w.child, "Look", [
      { type: "image", media_type: "image/png", data_base64: PNG_BASE64 },
    ]).response;
    assert.equal(first.result?.status, "completed");
    await w.child.close();
    w.child = await startReady(w.box, IMAGE_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test-secret-key" },
    });
    await w.child.call("session.open", { id });
    w.server.reply(text("Still a dot."));
    const again = await startImageTurn(w.child, "And now?", []).response.catch(() => null);
    // An empty attachments array is invalid_params (at least one): send a plain turn instead.
    assert.equal(again?.error?.code, "invalid_params");
    const plain = w.child.call("turn.start", { input: "And now?" });
    await plain;
    const messages = w.server.requests[1]?.body.messages;
    assert.deepEqual(messages[1].content, [
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      { type: "text", text: "Look" },
    ]);
    assert.equal(messages[3].content, "And now?");
    // Gone from the store (removed by hand): the turn still runs, the model is told in text.
    const store = join(w.box.home, "attachments");
    for (const name of readdirSync(store)) writeFileSync(join(store, name), "not the image");
    w.server.reply(text("Noted."));
    await w.child.call("turn.start", { input: "Once more" });
    const note = w.server.requests[2]?.body.messages[1].content;
    assert.match(
      note,
      /^\[An image \(image\/png, 1 KiB\) was attached here; it is no longer available\.\]\n\nLook$/,
    );
  });

  test("refusals with nothing sent or written: 6 MiB, a text file named .png, 9 images, a mismatched type, a FIFO", async () => {
    const { world: w, id } = await imageWorld();
    const big = writeImage(w.box.root, "big.jpg", jpegOf(6 * MIB));
    const atBound = writeImage(w.box.root, "bound.jpg", jpegOf(5 * MIB));
    const pastBound = writeImage(w.box.root, "past.jpg", jpegOf(5 * MIB + 1));
    const fake = writeImage(w.box.root, "notes.png", Buffer.from("just some text\n"));
    const fifo = join(w.box.root, "pipe.png");
    mkfifo(fifo);
    const inline = { type: "image", media_type: "image/png", data_base64: PNG_BASE64 };
    const refusals: [unknown[], RegExp][] = [
      [[{ type: "image", path: big }], /^Attachment 1 is over 5 MiB; nothing was sent\.$/],
      [[{ type: "image", path: pastBound }], /^Attachment 1 is over 5 MiB/],
      [[inline, { type: "image", path: fake }], /^Attachment 2 is not a PNG, JPEG, GIF or WebP/],
      [Array.from({ length: 9 }, () => inline), /./],
      [
        [{ ...inline, media_type: "image/jpeg" }],
        /^Attachment 1 is a PNG image, but its media_type says a JPEG image/,
      ],
      [[{ type: "image", path: fifo }], /^Attachment 1 is not a regular file/],
      [[{ type: "image", path: join(w.box.root, "missing.png") }], /^Attachment 1 cannot be read/],
      [[{ type: "image", media_type: "image/png", data_base64: "not base64!" }], /./],
    ];
    for (const [attachments, message] of refusals) {
      const frame = await startImageTurn(w.child, "Look", attachments).response;
      assert.equal(frame.error?.code, "invalid_params", JSON.stringify(attachments).slice(0, 80));
      assert.match(String(frame.error?.message), message);
      assert.ok(!String(frame.error?.message).includes(w.box.root), "no path in the message");
    }
    assert.equal(w.server.requests.length, 0, "nothing sent");
    assert.equal(existsSync(join(w.box.home, "sessions", `${id}.jsonl`)), false, "nothing saved");
    assert.equal(existsSync(join(w.box.home, "attachments")), false, "nothing stored");
    // 8 images, one of them exactly 5 MiB, are taken.
    w.server.reply(text("Eight."));
    const eight = [...Array.from({ length: 7 }, () => inline), { type: "image", path: atBound }];
    const ok = await startImageTurn(w.child, "Eight", eight).response;
    assert.equal(ok.result?.status, "completed", JSON.stringify(ok.error));
    assert.equal(w.server.requests[0]?.body.messages[1].content.length, 9);
  });

  test("without the attachments capability the param is unsupported_capability", async () => {
    world = await turnWorld();
    await world.child.call("session.create", {});
    const frame = await startImageTurn(world.child, "Look", [
      { type: "image", media_type: "image/png", data_base64: PNG_BASE64 },
    ]).response;
    assert.equal(frame.error?.code, "unsupported_capability");
    assert.equal(world.server.requests.length, 0);
  });

  test("a model whose modalities lack images refuses input_unsupported; unknown modalities send", async () => {
    const { world: w, id } = await imageWorld([
      { id: "demo-1", name: "Text only", modalities: { input: ["text"] } },
      { id: "demo-2", name: "Unknown" },
    ]);
    const inline = { type: "image", media_type: "image/png", data_base64: PNG_BASE64 };
    const refused = await startImageTurn(w.child, "Look", [inline]).response;
    assert.equal(refused.error?.code, "input_unsupported");
    assert.equal(w.server.requests.length, 0);
    assert.equal(existsSync(join(w.box.home, "sessions", `${id}.jsonl`)), false);
    const catalog = await w.child.call("model.catalog", {});
    await w.child.call("model.select", {
      model: "demo/demo-2",
      effort: null,
      catalog_revision: catalog.revision,
    });
    w.server.reply(text("Sent."));
    const sent = await startImageTurn(w.child, "Look", [inline]).response;
    assert.equal(sent.result?.status, "completed");
    assert.equal(w.server.requests.length, 1);
  });
});
