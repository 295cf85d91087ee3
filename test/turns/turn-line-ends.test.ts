import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { STREAM_LINE_BYTES } from "../../src/agent/providers/sse.js";
import { anthropicReply } from "../fixtures/anthropic-server.js";
import { text } from "../fixtures/chat-completions-server.js";
import { responsesReply } from "../fixtures/responses-server.js";
import type { LineEnd } from "../fixtures/scripted-sse.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { runTurn } from "./turn-harness.js";

/**
 * SSE line ends through the real child, on each wire format's loopback server: a stream whose
 * lines end in LF, CRLF or CR alone reads the same (its last event included, which a CR-only
 * stream completes only at its end), and the 8 MiB line bound counts a line between any two line
 * ends, so that a CR-only stream is not one long line.
 */

type Format = "responses" | "anthropic" | "chat";

const PROVIDER = { responses: "openai", anthropic: "anthropic", chat: "demo" } as const;
const ENV = { responses: { OPENAI_API_KEY: "sk-o" }, anthropic: { ANTHROPIC_API_KEY: "sk-a" } };

interface Stream {
  lineEnd: LineEnd;
  /** A comment line this long in bytes (its `: ` included) before the first text event. */
  commentBytes?: number;
}

/** Scripts the next answer of `world` in `format`: "Line ends hold." in three pieces. */
function script(world: ProviderWorld, format: Format, stream: Stream): void {
  const pieces = ["Line ", "ends ", "hold."];
  const comment =
    stream.commentBytes === undefined
      ? undefined
      : { before: 2, text: "c".repeat(stream.commentBytes - 2) };
  const delivery = { lineEnd: stream.lineEnd, ...(comment ? { comment } : {}) };
  if (format === "chat") world.chat().reply(text(pieces, delivery));
  else if (format === "responses")
    world.sse("openai").script(responsesReply({ text: pieces, ...delivery }));
  else world.sse("anthropic").script(anthropicReply({ text: pieces, ...delivery }));
}

for (const format of ["responses", "anthropic", "chat"] as const) {
  describe(`turns: SSE line ends on ${format}`, () => {
    let world: ProviderWorld;
    before(async () => {
      world = await providerWorld({
        providers: [PROVIDER[format]],
        ...(format === "chat" ? {} : { env: ENV[format] }),
      });
      await world.child.call("session.create", {});
    });
    after(() => world.close());

    for (const lineEnd of ["LF", "CRLF", "CR"] as const) {
      test(`${lineEnd}: the turn completes with the whole reply and its usage`, async () => {
        script(world, format, { lineEnd });
        const { result, events } = await runTurn(world.child, `Lines ending ${lineEnd}`);
        assert.equal(result.status, "completed", JSON.stringify(result.error));
        assert.equal(result.stop_reason, "end_turn");
        const done = events.filter((e) => e.event.type === "message_done");
        assert.deepEqual(
          done.map((e) => e.event.text),
          ["Line ends hold."],
        );
        assert.ok(result.usage.input_tokens > 0, "the usage, sent near the end, was read");
      });
    }

    test(`CR only: a line of ${STREAM_LINE_BYTES} bytes passes, one byte more fails invalid_response`, async () => {
      script(world, format, { lineEnd: "CR", commentBytes: STREAM_LINE_BYTES });
      const at = await runTurn(world.child, "At the bound");
      assert.equal(at.result.status, "completed", JSON.stringify(at.result.error));
      script(world, format, { lineEnd: "CR", commentBytes: STREAM_LINE_BYTES + 1 });
      const past = await runTurn(world.child, "Past the bound");
      assert.equal(past.result.status, "failed");
      assert.equal(past.result.error?.code, "invalid_response");
    });
  });
}
