import assert from "node:assert/strict";
import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import type { ConformanceCase } from "../case.js";
import { text } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { readyOrSkip } from "../skip.js";
import { finishTurn, startTurn } from "../turn-driver.js";
import {
  historyFiles,
  type TurnWorld,
  turnChildOptions,
  withTurnWorld,
  writeTurnHome,
} from "../turn-world.js";

/**
 * The `turn` extension's negotiation and its refusals (turns.md sections 1 and 3): advertised
 * only when negotiated and then exactly; each refusal an error response with nothing written
 * (no history file) and no model called.
 */
function assertNothingHappened(world: TurnWorld, what: string): void {
  assert.deepEqual(historyFiles(world.ctx.box), [], `${what}: no history was written`);
  assert.equal(world.server.requests.length, 0, `${what}: no model was called`);
}

async function refusal(child: TestChild, params: unknown): Promise<string | undefined> {
  const frame = await child.request("turn.start", params);
  assert.ok(!frame.result, `turn.start should be refused: ${JSON.stringify(frame.result)}`);
  return frame.error?.code;
}

export const TURN_ADMISSION_CASES: ConformanceCase[] = [
  {
    id: "turns.negotiation.extension",
    tier: "MUST",
    clause:
      'turns.md §1: When negotiated, initialize.extensions.turn is exactly {input_bytes: 262144, max_steps: 64, event_bytes: 65536, tool_output_bytes: 16384, tool_stream_bytes: 1048576, shell_timeout_ms: 600000, permissions, tools, decisions, rules, sandbox, checkpoints}, sandbox being "bubblewrap", "seatbelt" or null and checkpoints {available, reason}.',
    title: "negotiating turn advertises it with exactly the extension object",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child }) => {
        const init = child.frames[0]?.result as
          | { capabilities: string[]; extensions: Record<string, unknown> }
          | undefined;
        assert.ok(init?.capabilities.includes("turn"), "turn is among the capabilities");
        // The kit negotiates neither session.discover nor model.refresh: turn is the only one.
        // `sandbox` says what this machine can start (docs/turns.md): any of its values.
        const turn = init?.extensions.turn as Record<string, unknown> | undefined;
        // `checkpoints` says whether git can record them here (docs/checkpoints.md).
        const { sandbox, checkpoints, ...fixed } = turn ?? {};
        assert.deepEqual(Object.keys(init?.extensions ?? {}), ["turn"]);
        assert.deepEqual(fixed, TURN_EXTENSION);
        assert.ok(
          sandbox === null || sandbox === "bubblewrap" || sandbox === "seatbelt",
          "extensions.turn.sandbox is bubblewrap, seatbelt or null",
        );
        const found = checkpoints as { available?: unknown; reason?: unknown } | undefined;
        assert.deepEqual(Object.keys(found ?? {}).sort(), ["available", "reason"]);
        assert.ok(
          (found?.available === true && found.reason === null) ||
            (found?.available === false && typeof found.reason === "string"),
          "extensions.turn.checkpoints is {available: true, reason: null} or {available: false, reason}",
        );
      });
    },
  },
  {
    id: "turns.negotiation.not_negotiated",
    tier: "MUST",
    clause:
      "turns.md §1: Without it none of them is callable (unsupported_capability) and the child never writes a notification.",
    title: "without turn: turn.start, turn.interrupt, turn.approve refused, no notification",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const plain = await readyOrSkip(
          ctx,
          ["session.create", "session.list"],
          turnChildOptions(),
        );
        world.server.otherwise(text("This reply must never be asked for."));
        await plain.call("session.create", {});
        const calls: [string, unknown][] = [
          ["turn.start", { input: "hello" }],
          ["turn.interrupt", { request_id: "r-x" }],
          ["turn.approve", { approval_id: "a-x", decision: "deny" }],
          ["approval.rules", { action: "list" }],
        ];
        for (const [method, params] of calls)
          assert.equal(await plain.errorCode(method, params), "unsupported_capability", method);
        const init = plain.frames[0]?.result as { extensions: object } | undefined;
        assert.deepEqual(init?.extensions, {}, "no extension object without negotiation");
        assert.ok(
          plain.frames.every((f) => "id" in f),
          "the child wrote no notification without the turn capability",
        );
        assertNothingHappened(world, "not negotiated");
      });
    },
  },
  {
    id: "turns.refusals.attachment_required",
    tier: "MUST",
    clause:
      "turns.md §3: attachment_required: no session attached (session.create or session.open first); each an error response with nothing written.",
    title: "turn.start with no session attached: attachment_required, nothing written",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        world.server.otherwise(text("This reply must never be asked for."));
        assert.equal(await refusal(world.child, { input: "hello" }), "attachment_required");
        assertNothingHappened(world, "attachment_required");
      });
    },
  },
  {
    id: "turns.refusals.model_unavailable",
    tier: "MUST",
    clause:
      "turns.md §3: model_unavailable: no selection (status selection.model null), or the selected model is not a selectable choice of a fresh catalog snapshot.",
    title: "no selection, and a selection that is no choice: model_unavailable, nothing written",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async (world) => {
          world.server.otherwise(text("This reply must never be asked for."));
          const status = await world.child.call("status", {});
          assert.equal(status.selection.model, null, "the home prefers no model");
          await world.child.call("session.create", {});
          assert.equal(await refusal(world.child, { input: "hello" }), "model_unavailable");
          assertNothingHappened(world, "no selection");
          // The user's preference names a model that is not enabled: selected, but no choice.
          writeTurnHome(ctx.box, world.server.baseUrl, { model: "kit/kit-2" });
          const next = await world.respawn();
          assert.equal((await next.call("status", {})).selection.model, "kit/kit-2");
          await next.call("session.create", {});
          assert.equal(await refusal(next, { input: "hello" }), "model_unavailable");
          assertNothingHappened(world, "not a choice");
        },
        { model: null },
      );
    },
  },
  {
    id: "turns.refusals.invalid_params",
    tier: "MUST",
    clause:
      "turns.md §3: turn.start params exactly {input: string, permissions?}; input 1..input_bytes UTF-8 bytes. Refusals are error responses with nothing written.",
    title:
      "input_bytes + 1, empty input, unknown fields, bad permissions: invalid_params; the bound runs",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child, server } = world;
        await child.call("session.create", {});
        server.otherwise(text("Read it all."));
        // Two-byte characters: the bound is in UTF-8 bytes, not characters.
        const atBound = "é".repeat(TURN_EXTENSION.input_bytes / 2);
        const refused: unknown[] = [
          { input: `${atBound}a` },
          { input: "" },
          {},
          { input: "hello", extra: true },
          { input: "hello", permissions: "root" },
          { input: 42 },
        ];
        for (const params of refused) {
          const code = await refusal(child, params);
          assert.equal(code, "invalid_params", JSON.stringify(params).slice(0, 80));
        }
        assertNothingHappened(world, "invalid_params");
        const { result } = await finishTurn(child, startTurn(child, atBound));
        assert.equal(result.status, "completed", "an input of exactly input_bytes runs");
        const sent = JSON.stringify(server.requests[0]?.body ?? {});
        assert.ok(sent.includes(atBound), "the model was shown the whole input");
      });
    },
  },
];
