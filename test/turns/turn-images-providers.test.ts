import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { anthropicReply } from "../fixtures/anthropic-server.js";
import { responsesReply } from "../fixtures/responses-server.js";
import { IMAGE_CAPS, jpegOf, PNG_BASE64, startImageTurn, writeImage } from "./image-fixtures.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";

// Images in each provider's own wire format, seen byte for byte by the loopback server
// (issue 43 item 4; docs/providers.md, "Images").

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("turns: images in the Responses and Messages wire formats", () => {
  test("openai (Responses): input_image parts with data URLs, then the input_text", async () => {
    world = await providerWorld({
      providers: ["openai"],
      env: { OPENAI_API_KEY: "sk-openai-secret-key" },
      capabilities: IMAGE_CAPS,
    });
    await world.child.call("session.create", {});
    const server = world.sse("openai");
    server.script(responsesReply({ text: ["A dot and a photo."] }));
    const jpeg = jpegOf(1536 * 1024);
    const path = writeImage(world.box.root, "photo.jpg", jpeg);
    const frame = await startImageTurn(world.child, "Describe", [
      { type: "image", media_type: "image/png", data_base64: PNG_BASE64 },
      { type: "image", path },
    ]).response;
    assert.equal(frame.result?.status, "completed", JSON.stringify(frame.error));
    const expected = JSON.stringify({
      type: "message",
      role: "user",
      content: [
        { type: "input_image", image_url: `data:image/png;base64,${PNG_BASE64}`, detail: "auto" },
        {
          type: "input_image",
          image_url: `data:image/jpeg;base64,${jpeg.toString("base64")}`,
          detail: "auto",
        },
        { type: "input_text", text: "Describe" },
      ],
    });
    assert.ok(server.seen[0]?.body.includes(expected), "the input item, byte for byte");
  });

  test("anthropic (Messages): image blocks with a base64 source, then the text block", async () => {
    world = await providerWorld({
      providers: ["anthropic"],
      env: { ANTHROPIC_API_KEY: "sk-ant-secret-key" },
      capabilities: IMAGE_CAPS,
    });
    await world.child.call("session.create", {});
    const server = world.sse("anthropic");
    server.script(anthropicReply({ text: ["A dot."] }));
    const frame = await startImageTurn(world.child, "Describe", [
      { type: "image", media_type: "image/png", data_base64: PNG_BASE64 },
    ]).response;
    assert.equal(frame.result?.status, "completed", JSON.stringify(frame.error));
    const expected = JSON.stringify({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
        { type: "text", text: "Describe" },
      ],
    });
    assert.ok(server.seen[0]?.body.includes(expected), "the user message, byte for byte");
  });
});
