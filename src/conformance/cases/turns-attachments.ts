import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { text } from "../chat-server.js";
import type { Frame } from "../frame.js";
import type { TestChild } from "../harness.js";
import { historyOf } from "../turn-driver.js";
import { historyFiles, TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * The `attachments` capability (docs/turns.md section 15): images with a prompt reach a Chat
 * Completions server as `image_url` data URLs before the text; the history names them by
 * reference only; a bad image is `invalid_params` with nothing sent or saved.
 */
const ATTACHMENT_CAPABILITIES = [...TURN_CAPABILITIES, "attachments"];

/** A real 1x1 PNG. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const INLINE = { type: "image", media_type: "image/png", data_base64: PNG_BASE64 };

let sent = 0;

function imageTurn(child: TestChild, input: string, attachments: unknown[]): Promise<Frame> {
  const id = `kit-image-${++sent}`;
  const response = child.waitFor((f) => f.id === id, 60_000);
  child.send({ id, method: "turn.start", params: { input, attachments } });
  return response;
}

export const TURN_ATTACHMENT_CASES: ConformanceCase[] = [
  {
    id: "turns.attachments.wire",
    tier: "MUST",
    clause:
      "docs/turns.md section 15: an inline PNG goes to a Chat Completions server as an image_url part with a data URL before the input's text part; the history's user_message names it by sha256, never its bytes.",
    title: "an inline PNG: the user message's parts on the wire, a reference in the history",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          const { session } = await child.call("session.create", {});
          server.reply(text("A dot."));
          const frame = await imageTurn(child, "What is it?", [INLINE]);
          assert.equal(frame.result?.status, "completed", JSON.stringify(frame.error));
          const user = server.requests[0]?.body?.messages?.at(-1);
          assert.deepEqual(user, {
            role: "user",
            content: [
              { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
              { type: "text", text: "What is it?" },
            ],
          });
          const records = await historyOf(child, session.id);
          const message = records.find((r) => r.type === "user_message");
          const refs = message?.attachments as { sha256?: string; media_type?: string }[];
          assert.equal(refs?.length, 1);
          assert.match(String(refs[0]?.sha256), /^[0-9a-f]{64}$/);
          assert.equal(refs[0]?.media_type, "image/png");
          assert.ok(!JSON.stringify(records).includes(PNG_BASE64), "no image bytes in the history");
        },
        { capabilities: ATTACHMENT_CAPABILITIES },
      );
    },
  },
  {
    id: "turns.attachments.refused",
    tier: "MUST",
    clause:
      "docs/turns.md section 15: text bytes claimed as image/png, and 9 images, are invalid_params before anything is sent or saved.",
    title: "a text file as a PNG and 9 images: invalid_params, nothing sent or saved",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          const notPng = {
            ...INLINE,
            data_base64: Buffer.from("hello, world\n").toString("base64"),
          };
          for (const attachments of [[notPng], Array.from({ length: 9 }, () => INLINE)]) {
            const frame = await imageTurn(child, "Look", attachments);
            assert.equal(frame.error?.code, "invalid_params");
          }
          assert.equal(server.requests.length, 0, "nothing sent");
          assert.deepEqual(historyFiles(ctx.box), [], "nothing saved");
        },
        { capabilities: ATTACHMENT_CAPABILITIES },
      );
    },
  },
];
