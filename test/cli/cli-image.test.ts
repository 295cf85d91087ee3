import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { runCli } from "../helpers/cli.js";
import { PNG, PNG_BASE64 } from "../turns/image-fixtures.js";
import { cliTurnWorld } from "./cli-turn-world.js";

/** `exec --image` and chat's `/image` (docs/cli.md) against the real child. */
describe("mc-agent exec --image and chat /image", () => {
  const world = cliTurnWorld("mc-cli-image-");
  const run = (args: string[], input?: string) =>
    runCli(args, {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
      ...(input !== undefined ? { input } : {}),
    });
  const dataUrl = `data:image/png;base64,${PNG_BASE64}`;

  it("exec --image sends the file with the prompt; a text file named .png is refused, nothing sent", async () => {
    writeFileSync(join(world.box.workspace, "dot.png"), PNG);
    world.server.reply(text("A red dot."));
    const ok = await run(["exec", "--image", "dot.png", "What", "is", "this?"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, "A red dot.\n");
    assert.deepEqual(world.server.requests[0]?.body.messages.at(-1), {
      role: "user",
      content: [
        { type: "image_url", image_url: { url: dataUrl } },
        { type: "text", text: "What is this?" },
      ],
    });
    writeFileSync(join(world.box.workspace, "notes.png"), "just text\n");
    const refused = await run(["exec", "--image", "notes.png", "Look"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Attachment 1 is not a PNG, JPEG, GIF or WebP image/);
    assert.equal(world.server.requests.length, 1, "nothing sent");
  });

  it("chat /image sends the image with the next message only", async () => {
    writeFileSync(join(world.box.workspace, "dot.png"), PNG);
    const before = world.server.requests.length;
    world.server.reply(text("A dot."), text("No image now."));
    const chat = await run(["chat"], "/image dot.png\nWhat is it?\nAnd now?\n");
    assert.equal(chat.code, 0, chat.stderr);
    const [first, second] = world.server.requests.slice(before);
    assert.deepEqual(first?.body.messages.at(-1).content, [
      { type: "image_url", image_url: { url: dataUrl } },
      { type: "text", text: "What is it?" },
    ]);
    assert.equal(second?.body.messages.at(-1).content, "And now?");
  });
});
