import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { text } from "../../src/conformance/chat-server.js";
import { PNG_BASE64 } from "../turns/image-fixtures.js";
import { AcpWorld } from "./acp-world.js";

// A screenshot pasted in an ACP editor reaches the model (issue 43 item 4; docs/acp.md).

describe("mc-agent acp: images in a prompt", () => {
  let world: AcpWorld;
  afterEach(async () => {
    await world?.close();
  });

  it("advertises image prompts and sends an image block to the model as an image_url part", async () => {
    // A window that holds an image (about 1600 tokens; the world's default is 1000).
    world = await AcpWorld.start({ contextWindow: 200_000 });
    const init = await world.initialize();
    assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
    const { sessionId } = await world.newSession();
    world.server.reply(text("A red dot."));
    const answer = await world.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "What is this?" },
        { type: "image", data: PNG_BASE64, mimeType: "image/png" },
      ],
    });
    assert.equal(answer.stopReason, "end_turn");
    const user = world.server.requests[0]?.body.messages.at(-1);
    assert.deepEqual(user, {
      role: "user",
      content: [
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        { type: "text", text: "What is this?" },
      ],
    });
    // Bytes that are not the PNG they claim: refused, nothing sent.
    await assert.rejects(
      world.agent.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "image", data: Buffer.from("text").toString("base64"), mimeType: "image/png" },
        ],
      }),
      (error: { code: number }) => error.code === -32602,
    );
    assert.equal(world.server.requests.length, 1);
  });
});
