import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { type ChatServer, call, stall, text, toolCalls } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { historyOf, runTurn, type StartedTurn, startTurn } from "../turn-driver.js";
import { KIT_MODEL, type TurnWorld, withTurnWorld } from "../turn-world.js";

/**
 * What a turn leaves in the store (turns.md section 8, docs/store.md "Turn records"): the
 * records of a tool turn in order, each with type, ts, cwd and turn_id, whole LF-ended lines,
 * no lock after the turn; and a writer killed (kill -9) at moments of a turn leaves a history
 * that is still valid, listed, openable, and that the next turn goes on with.
 */
const READ_ID = "call_kit_read_1";

/** `expected` appears in `types` in this order (other records may come between). */
function assertInOrder(types: string[], expected: string[]): void {
  let at = 0;
  for (const type of types) if (type === expected[at]) at += 1;
  assert.equal(at, expected.length, `records ${expected.join(", ")} in order; got ${types}`);
}

function historyLines(world: TurnWorld, id: string): string[] {
  const raw = readFileSync(join(world.ctx.box.home, "sessions", `${id}.jsonl`), "utf8");
  assert.ok(raw.endsWith("\n"), "the history ends with a whole, LF-ended record");
  return raw.slice(0, -1).split("\n");
}

/** A new child on the store: the session is listed (not omitted), opens, and reads whole. */
async function assertValidAndListed(world: TurnWorld, id: string): Promise<TestChild> {
  const next = await world.respawn();
  const list = await next.call("session.list", {});
  assert.ok(
    list.sessions.some((s) => s.id === id),
    `the session is listed; notices: ${JSON.stringify(list.notices)}`,
  );
  assert.ok(
    !list.notices.some((n) => n.code === "sessions_omitted_invalid"),
    "no history is invalid",
  );
  await next.call("session.open", { id });
  const records = await historyOf(next, id);
  assert.equal(records[0]?.type, "session_meta");
  return next;
}

/** The three moments of a turn the kill lands in (each turn started on `child`). */
const KILL_MOMENTS: {
  name: string;
  script(server: ChatServer): void;
  reached(turn: StartedTurn): Promise<unknown>;
}[] = [
  {
    name: "while the model streams",
    script: (server) => server.reply(stall(text("A reply that never ends, cut by a kill."), 4)),
    reached: (turn) => turn.event("message_delta"),
  },
  {
    name: "while an approval waits",
    script: (server) =>
      server.reply(toolCalls([call("write_file", { path: "k.txt", content: "k\n" })])),
    reached: (turn) => turn.event("approval_requested"),
  },
  {
    name: "after a tool ran, while the next call streams",
    script: (server) =>
      server.reply(
        toolCalls([call("list_dir", { path: "." })]),
        stall(text("Listing done, now a long answer."), 4),
      ),
    reached: async (turn) => {
      await turn.event("tool_done");
      await turn.event("message_delta");
    },
  },
];

export const TURN_PERSISTENCE_CASES: ConformanceCase[] = [
  {
    id: "turns.persistence.records",
    tier: "MUST",
    clause:
      "turns.md §8: Records (every one with type, ts, cwd = canonical workspace, turn_id): turn_start, user_message, assistant_message, tool_call, tool_result, turn_end; each record one line; the lock removed at the end.",
    title: "a tool turn's records in order with type, ts, cwd, turn_id; whole lines; no lock",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child, server } = world;
        writeFileSync(join(ctx.box.workspace, "kit-read.txt"), "alpha\n");
        const { session } = await child.call("session.create", {});
        server.reply(
          toolCalls([call("read_file", { path: "kit-read.txt" }, READ_ID)]),
          text("It says alpha."),
        );
        const { result } = await runTurn(child, "What is in kit-read.txt?");
        assert.equal(result.status, "completed");
        assert.ok(!existsSync(join(ctx.box.home, "sessions", `${session.id}.lock`)), "no lock");
        const lines = historyLines(world, session.id);
        const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        assert.deepEqual(records[0] && [records[0].type, records[0].id], [
          "session_meta",
          session.id,
        ]);
        for (const record of records.slice(1)) {
          assert.equal(typeof record.ts, "string", "every record has ts");
          assert.equal(record.cwd, ctx.box.workspace, "cwd is the canonical workspace");
          assert.equal(record.turn_id, result.turn_id, `${record.type} carries the turn_id`);
        }
        const types = records.map((r) => String(r.type));
        assertInOrder(types, ["turn_start", "user_message", "tool_call", "tool_result"]);
        assertInOrder(types, ["tool_result", "assistant_message", "turn_end"]);
        assert.equal(types.at(-1), "turn_end");
        const byType = (type: string) => records.find((r) => r.type === type) ?? {};
        assert.equal(byType("turn_start").model, KIT_MODEL);
        assert.equal(byType("turn_start").permissions, "ask");
        assert.equal(byType("user_message").text, "What is in kit-read.txt?");
        const toolCall = byType("tool_call");
        const toolResult = byType("tool_result");
        assert.equal(toolCall.tool, "read_file");
        assert.deepEqual(toolCall.input, { path: "kit-read.txt" });
        assert.equal(toolResult.item_id, toolCall.item_id, "the result names its call's item");
        assert.equal(toolResult.status, "completed");
        assert.match(String(toolResult.output), /alpha/, "the output the model saw is recorded");
        const end = byType("turn_end");
        assert.deepEqual([end.status, end.stop_reason], ["completed", "end_turn"]);
        assert.equal(typeof end.usage, "object");
        assert.equal(
          records.findLast((r) => r.type === "assistant_message")?.text,
          "It says alpha.",
        );
      });
    },
  },
  {
    id: "turns.persistence.kill9",
    tier: "MUST",
    clause:
      "turns.md §8: A history whose last turn has turn_start and no turn_end (a killed writer) reads as that turn interrupted; nothing repairs it but the next turn's writer, which appends normally; a lock whose pid is dead is taken over.",
    title: "kill -9 while streaming, while an approval waits, after a tool: valid, listed, goes on",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        let child = world.child;
        const { session } = await child.call("session.create", {});
        world.server.reply(text("First answer."));
        await runTurn(child, "First question.");
        for (const moment of KILL_MOMENTS) {
          moment.script(world.server);
          const turn = startTurn(child, `Kill me ${moment.name}.`);
          await moment.reached(turn);
          child.kill("SIGKILL");
          await child.exited;
          child = await assertValidAndListed(world, session.id);
          world.server.reply(text(`Recovered ${moment.name}.`));
          const { result } = await runTurn(child, `Go on after a kill ${moment.name}.`);
          assert.equal(result.status, "completed", `the next turn goes on ${moment.name}`);
          const records = await historyOf(child, session.id);
          assert.equal(records.at(-1)?.type, "turn_end", "the new turn ended normally");
        }
        const last = world.server.requests.at(-1)?.body?.messages as { content?: unknown }[];
        const shown = JSON.stringify(last);
        assert.ok(shown.includes("First question."), "the history before the kills is replayed");
      });
    },
  },
];
