import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { within } from "../expect.js";
import type { Frame } from "../frame.js";
import { nextId, type TestChild } from "../harness.js";
import { SESSION_CAPABILITIES, writeHistoryOfSize, writeSmallHistory } from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * A worker operation and `operation.cancel` for it in one write: whichever wins, the answer
 * must match the effect. `operation_cancelled` means the attachment is as it was; a result
 * means the attachment changed. Repeated, since the race can go either way in any child.
 */
const ROUNDS = 6;
const ANSWER_MATCHES_EFFECT =
  "base §6: On any failure the attachment stays as it was. extensions §Operation cancellation: a cancelled request has no effect; an effect means a result.";

async function attachment(child: TestChild): Promise<unknown> {
  const status = await child.request("status", {});
  assert.ok(status.result, `status: ${JSON.stringify(status.error)}`);
  return status.result.attachment;
}

/** Sends the request and a cancel for it as ONE stdin chunk; resolves with both answers. */
async function withCancelInOneWrite(
  child: TestChild,
  method: string,
  params: object,
): Promise<{ terminal: Frame; ack: Frame }> {
  const id = nextId(method.replace(".", "-"));
  const cancelId = nextId("cancel");
  const terminal = child.waitFor((f) => f.id === id, 20_000);
  const ack = child.waitFor((f) => f.id === cancelId, 20_000);
  child.send(
    `${JSON.stringify({ id, method, params })}\n` +
      `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: id } })}\n`,
  );
  return { terminal: await within(terminal, 20_000, method), ack: await ack };
}

/**
 * The answer is either operation_cancelled or a result, never another error; a cancel that
 * found nothing to cancel (the request had already answered) leaves only a result possible.
 */
function outcomeOf(answers: { terminal: Frame; ack: Frame }, what: string): "cancelled" | "result" {
  const { terminal, ack } = answers;
  if (ack.error) {
    assert.equal(ack.error.code, "operation_missing", `${what}: cancel ${JSON.stringify(ack)}`);
    assert.ok(terminal.result, `${what}: not cancelled, yet ${JSON.stringify(terminal)}`);
  }
  if (terminal.result) return "result";
  assert.equal(terminal.error?.code, "operation_cancelled", `${what}: ${JSON.stringify(terminal)}`);
  return "cancelled";
}

export const CANCEL_COMMIT_CASES: ConformanceCase[] = [
  {
    id: "cancel.commit.open_same_write",
    tier: "MUST",
    clause: ANSWER_MATCHES_EFFECT,
    title:
      "open of a 64 KiB history cancelled in the same write: the answer matches the attachment",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeHistoryOfSize(ctx.box, "big", 64 * 1024);
      writeSmallHistory(ctx.box, "small");
      for (let round = 0; round < ROUNDS; round += 1) {
        const reset = await child.request("session.open", { id: "small" });
        assert.ok(reset.result, `round ${round}: open small: ${JSON.stringify(reset.error)}`);
        const before = await attachment(child);
        const answers = await withCancelInOneWrite(child, "session.open", { id: "big" });
        const after = await attachment(child);
        if (outcomeOf(answers, `round ${round}: open`) === "cancelled") {
          assert.deepEqual(after, before, `round ${round}: cancelled open left the attachment`);
        } else {
          assert.deepEqual(after, { session_id: "big", saved: true }, `round ${round}: opened`);
        }
      }
    },
  },
  {
    id: "cancel.commit.create_same_write",
    tier: "MUST",
    clause: ANSWER_MATCHES_EFFECT,
    title: "create cancelled in the same write: the answer matches the attachment",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeSmallHistory(ctx.box, "small");
      for (let round = 0; round < ROUNDS; round += 1) {
        const reset = await child.request("session.open", { id: "small" });
        assert.ok(reset.result, `round ${round}: open small: ${JSON.stringify(reset.error)}`);
        const before = await attachment(child);
        const answers = await withCancelInOneWrite(child, "session.create", {});
        const after = await attachment(child);
        if (outcomeOf(answers, `round ${round}: create`) === "cancelled") {
          assert.deepEqual(after, before, `round ${round}: cancelled create left the attachment`);
        } else {
          const handle = answers.terminal.result?.session as { id: string };
          assert.deepEqual(after, { session_id: handle.id, saved: false }, `round ${round}`);
        }
      }
    },
  },
];
