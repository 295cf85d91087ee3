import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { contextTooLong, type Script, text } from "../chat-server.js";
import { sessionsFolder } from "../session-store.js";
import { bodiesOf, historyOf, runTurn, type TurnEvent } from "../turn-driver.js";
import { KIT_MODEL, withTurnWorld } from "../turn-world.js";

/**
 * Compaction as any implementation must make it visible (turns.md section 10), whatever its
 * summary prompt or token estimate: the catalog gives the model a small `context_window`
 * (4000), and the kit's model answers every call (it cannot know how many calls another
 * implementation makes, nor which is the summary call).
 *
 * Decision: with a history far past the window and a short new input, the conversation fits
 * once compacted, so compaction is required (a `compacted` event, a `compaction` record, later
 * contexts from the summary); `context_exceeded` is for a context that still does not fit, which
 * the second case makes certain with an input larger than the whole window.
 */
const WINDOW = 4000;
const SUMMARY = "Kit summary: the user shared long notes; nothing is left to do.";
const OLD_TURNS = 4;
const TS = "2026-11-29T10:00:00.000Z";

const marker = (n: number) => `kit-old-marker-${n}`;
/** About 4000 characters (some 1000 tokens by any tokenizer): a note nobody can keep whole. */
const note = (n: number) => `${marker(n)} ${"notes about the build and the tests ".repeat(110)}`;

/**
 * A saved session of OLD_TURNS earlier turns, in the record format of docs/store.md: some 8000
 * tokens, twice the window.
 */
function writeLongHistory(workspace: string, folder: string, id: string): void {
  const cwd = workspace;
  const lines: unknown[] = [{ type: "session_meta", ts: TS, cwd, id }];
  for (let n = 1; n <= OLD_TURNS; n += 1) {
    const turn_id = `t-old-${n}`;
    const usage = {
      input_tokens: 0,
      output_tokens: 0,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
    };
    lines.push(
      {
        type: "turn_start",
        ts: TS,
        cwd,
        turn_id,
        model: KIT_MODEL,
        effort: null,
        permissions: "ask",
      },
      { type: "user_message", ts: TS, cwd, turn_id, text: note(n * 2 - 1) },
      { type: "assistant_message", ts: TS, cwd, turn_id, text: note(n * 2), model: KIT_MODEL },
      {
        type: "turn_end",
        ts: TS,
        cwd,
        turn_id,
        status: "completed",
        stop_reason: "end_turn",
        usage,
      },
    );
  }
  writeFileSync(join(folder, `${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

/** A model with an honest usage report: input tokens about a quarter of the request's bytes. */
function answerWith(reply: string, enforceWindow: boolean): Script {
  return (exchange) => {
    const tokens = Math.ceil(exchange.request.raw.length / 4);
    if (enforceWindow && tokens > WINDOW) return contextTooLong()(exchange);
    return text(reply, { usage: { prompt_tokens: tokens, completion_tokens: 20 } })(exchange);
  };
}

function compactionsOf(records: Record<string, unknown>[]): Record<string, unknown>[] {
  return records.filter((r) => r.type === "compaction");
}

/** A compacted event comes with a compaction record, and the other way round. */
function assertVisibleTogether(
  events: TurnEvent[],
  records: Record<string, unknown>[],
  turnId: string,
) {
  const compacted = bodiesOf(events, "compacted");
  const recorded = compactionsOf(records).filter((r) => r.turn_id === turnId);
  assert.equal(compacted.length, recorded.length, "each compaction is both an event and a record");
  for (const record of recorded) {
    assert.equal(typeof record.summary, "string");
    assert.ok(String(record.summary).length > 0, "the summary is recorded");
    assert.ok(Number.isInteger(record.tokens_before), "tokens_before is recorded");
  }
}

export const TURN_COMPACTION_CASES: ConformanceCase[] = [
  {
    id: "turns.compaction.visible",
    tier: "MUST",
    clause:
      "turns.md §10: past 85% of the model's context_window the engine compacts: the summary is appended as a compaction record and announced by a compacted event; every later context is the system prompt, the latest summary and the records after it. Compaction never rewrites or deletes history.",
    title:
      "a history twice the window: compacted event, compaction record, later calls from the summary",
    async run(ctx) {
      writeLongHistory(ctx.box.workspace, sessionsFolder(ctx.box), "kit-long");
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          server.otherwise(answerWith(SUMMARY, false));
          await child.call("session.open", { id: "kit-long" });
          const { result, events } = await runTurn(child, "What should I do next?");
          assert.equal(
            result.status,
            "completed",
            `compacted, then answered: ${JSON.stringify(result.error)}`,
          );
          const compacted = bodiesOf(events, "compacted");
          assert.ok(compacted.length >= 1, "the turn compacted (a compacted event)");
          for (const c of compacted)
            assert.ok(c.tokens_after < c.tokens_before, "compaction makes the context smaller");
          const records = await historyOf(child, "kit-long");
          assertVisibleTogether(events, records, result.turn_id);
          for (let n = 1; n <= OLD_TURNS * 2; n += 1)
            assert.ok(
              records.some((r) => String(r.text ?? "").startsWith(marker(n))),
              `session.history still returns original record ${n}`,
            );
          const afterwards = server.requests.at(-1)?.raw ?? "";
          assert.ok(afterwards.includes(SUMMARY), "the answering call starts from the summary");
          for (let n = 1; n <= OLD_TURNS * 2; n += 1)
            assert.ok(!afterwards.includes(marker(n)), `the compacted record ${n} is not resent`);
          const seen = server.requests.length;
          const next = await runTurn(child, "And after that?");
          assert.equal(next.result.status, "completed");
          const later = server.requests.slice(seen).map((r) => r.raw);
          assert.ok(later[0]?.includes(SUMMARY), "the next turn's context starts from the summary");
          for (const raw of later)
            for (let n = 1; n <= OLD_TURNS * 2; n += 1)
              assert.ok(!raw.includes(marker(n)), `the next turn does not resend record ${n}`);
        },
        { contextWindow: WINDOW },
      );
    },
  },
  {
    id: "turns.compaction.cannot_fit",
    tier: "MUST",
    clause:
      "turns.md §10: The current turn's input is always kept whole. If the context still does not fit, the turn fails context_exceeded. §8: turn_end {status, stop_reason, usage, error_code?}.",
    title: "an input larger than the window: failed context_exceeded, recorded, history valid",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          // The model enforces its window as a real server does (OpenAI's too-long 400).
          server.otherwise(answerWith(SUMMARY, true));
          const { session } = await child.call("session.create", {});
          const input = `kit-huge-input ${"a sentence that has to be read whole ".repeat(700)}`;
          const { result, events } = await runTurn(child, input);
          assert.equal(result.status, "failed");
          assert.equal(result.stop_reason, null);
          assert.equal(result.error?.code, "context_exceeded");
          const records = await historyOf(child, session.id);
          assertVisibleTogether(events, records, result.turn_id);
          assert.equal(
            records.find((r) => r.type === "user_message" && r.turn_id === result.turn_id)?.text,
            input,
            "the input is kept whole",
          );
          const end = records.at(-1);
          assert.deepEqual(
            [end?.type, end?.status, end?.error_code],
            ["turn_end", "failed", "context_exceeded"],
          );
          const list = await child.call("session.list", {});
          assert.ok(
            list.sessions.some((s) => s.id === session.id),
            "the session is listed",
          );
        },
        { contextWindow: WINDOW },
      );
    },
  },
];
