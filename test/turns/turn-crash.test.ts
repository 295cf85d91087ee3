import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { type Script, text } from "../fixtures/chat-completions-server.js";
import { type Frame, startReady, type TestChild } from "../helpers/child.js";
import {
  assertListedAndReadable,
  assertWholeRecords,
  exists,
  historyPath,
  lockPath,
  paced,
  readHistory,
} from "./history-file.js";
import { runTurn, startTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const KEY_ENV = { DEMO_KEY: "sk-test-secret-key" };
const TRIALS = 20;
/** Print it, and set MC_TEST_SEED to it to replay a failing run. */
const SEED = Number(process.env.MC_TEST_SEED ?? Date.now() % 1_000_000);

/** mulberry32: a small seeded generator, so that a failing trial can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The model's answers, served from a list the test controls: the server is given a dispatcher
 * per call, so that what a killed turn left unused can be dropped before the next turn.
 */
class Plan {
  private readonly steps: Script[] = [];
  constructor(world: TurnWorld) {
    const dispatch: Script = (exchange) => (this.steps.shift() ?? text("Unplanned."))(exchange);
    for (let i = 0; i < 200; i += 1) world.server.reply(dispatch);
  }
  set(...steps: Script[]): void {
    this.steps.length = 0;
    this.steps.push(...steps);
  }
}

type Shape = "text" | "tool" | "shell";

/** The killed turn's answers: streamed text, a tool step, or a streaming shell step. */
function shapeSteps(shape: Shape, rng: () => number): Script[] {
  const gap = 2 + Math.floor(rng() * 8);
  const words = "the quick brown fox jumps over the lazy dog ".repeat(4);
  const reply = paced({ text: words, pieceChars: 6 }, gap);
  if (shape === "text") return [reply];
  if (shape === "tool")
    return [
      paced(
        { text: "Let me read it.", calls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        gap,
      ),
      paced({ calls: [{ name: "write_file", input: { path: "out.txt", content: words } }] }, gap),
      reply,
    ];
  const command = "for i in 1 2 3 4 5; do echo line $i; sleep 0.04; done";
  return [paced({ calls: [{ name: "shell", input: { command } }] }, gap), reply];
}

/** Kills the child at a random moment of the turn: after a delay, or at its n-th event. */
async function killSomewhere(
  child: TestChild,
  requestId: string,
  rng: () => number,
): Promise<string> {
  if (rng() < 0.5) {
    const ms = Math.floor(rng() * 500);
    await new Promise((resolve) => setTimeout(resolve, ms));
    child.kill("SIGKILL");
    return `after ${ms} ms`;
  }
  const seq = Math.floor(rng() * 40);
  const isEvent = (f: Frame) => {
    const p = (f as unknown as { method?: string; params?: { request_id: string; seq: number } })
      .params;
    return p?.request_id === requestId && p.seq >= seq;
  };
  // The turn may end before that many events: then it is killed after its result.
  await Promise.race([
    child.waitFor(isEvent, 30_000),
    child.waitFor((f) => f.id === requestId, 30_000),
  ]);
  child.kill("SIGKILL");
  return `at event ${seq}`;
}

describe(`turns: kill -9 at random moments (seed ${SEED}, ${TRIALS} trials)`, () => {
  for (let trial = 0; trial < TRIALS; trial += 1) {
    const rng = random(SEED * 100 + trial);
    const shape = (["text", "tool", "shell"] as const)[Math.floor(rng() * 3)] as Shape;
    test(`trial ${trial} (seed ${SEED}): a ${shape} turn killed, then a new child goes on`, async (t) => {
      world = await turnWorld();
      const { box } = world;
      const plan = new Plan(world);
      writeFileSync(`${box.workspace}/notes.txt`, "alpha\n");
      const { session } = await world.child.call("session.create", {});
      plan.set(text("First answer."));
      assert.equal((await runTurn(world.child, "First question")).result.status, "completed");
      plan.set(...shapeSteps(shape, rng));
      const killed = startTurn(world.child, "Do the work", "full_access");
      const moment = await killSomewhere(world.child, killed.id, rng);
      t.diagnostic(`seed ${SEED} trial ${trial}: ${shape} turn killed ${moment}`);
      await world.child.exited;

      // Whatever the moment: every whole line a record; at most a torn tail after them.
      const { records: onDisk, tail } = readHistory(box, session.id);
      assert.equal(onDisk[0]?.type, "session_meta");
      assert.ok(!tail.includes("\n"));
      world.child = await startReady(box, TURN_CAPS, { testMethods: true, env: KEY_ENV });
      const leftLock = exists(lockPath(box, session.id));
      const history = await assertListedAndReadable(world.child, session.id, leftLock);
      assert.deepEqual(history, onDisk, "session.history serves the whole records, no torn tail");

      // The next turn (a new child, the dead writer's lock taken over) goes on.
      plan.set(text("Recovered."));
      const requestsBefore = world.server.requests.length;
      const next = await runTurn(world.child, "Next turn");
      assert.equal(next.result.status, "completed", JSON.stringify(next.result.error));
      const messages = world.server.requests[requestsBefore]?.body.messages;
      assert.deepEqual(messages[1], { role: "user", content: "First question" });
      assert.deepEqual(messages.at(-1), { role: "user", content: "Next turn" });
      // What the killed turn recorded is replayed: its input, and an answer for every call.
      const left = onDisk.slice(5);
      t.diagnostic(
        `left: ${left.map((r) => r.type).join(" ") || "nothing"}${tail ? " + torn tail" : ""}`,
      );
      const sawInput = messages.some((m: { content?: string }) => m.content === "Do the work");
      assert.equal(
        sawInput,
        left.some((r) => r.type === "user_message"),
      );
      for (const call of left.filter((r) => r.type === "tool_call"))
        assert.ok(
          messages.some((m: { tool_call_id?: string }) => m.tool_call_id === call.call_id),
          "every recorded call is answered in the replay",
        );
      const after = assertWholeRecords(box, session.id);
      assert.deepEqual(after.slice(0, onDisk.length), onDisk, "what was whole stays as it was");
      assert.deepEqual(
        after.slice(onDisk.length).map((r) => r.type),
        ["turn_start", "user_message", "assistant_message", "turn_end"],
      );
      assert.equal(exists(lockPath(box, session.id)), false, "the lock is released");
    });
  }
});

describe("turns: a torn tail", () => {
  test("is listed, opened and read without it, and truncated by the next writer", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("First answer."));
    await runTurn(child, "First question");
    const whole = readFileSync(historyPath(box, session.id));
    const records = assertWholeRecords(box, session.id);
    const torn = '{"type":"assistant_message","ts":"2025-01-01T00:00:00.000Z","text":"half a';
    appendFileSync(historyPath(box, session.id), torn);
    // A new child: the listing, discovery, open and history all read up to the torn tail.
    await child.close();
    world.child = await startReady(box, TURN_CAPS, { testMethods: true, env: KEY_ENV });
    const list = await world.child.call("session.list", {});
    assert.equal(list.sessions.find((s) => s.id === session.id)?.title, "First question");
    assert.deepEqual(await assertListedAndReadable(world.child, session.id), records);
    assert.equal(readFileSync(historyPath(box, session.id)).length, whole.length + torn.length);
    server.reply(text("Second answer."));
    const next = await runTurn(world.child, "Second question");
    assert.equal(next.result.status, "completed");
    // On disk: the whole records byte for byte, the torn bytes gone, the new turn after them.
    const bytes = readFileSync(historyPath(box, session.id));
    assert.deepEqual(bytes.subarray(0, whole.length), whole);
    assert.ok(!bytes.toString("utf8").includes("half a"), "the torn bytes are gone");
    const after = assertWholeRecords(box, session.id);
    assert.deepEqual(after.slice(0, records.length), records);
    assert.deepEqual(
      after.slice(records.length).map((r) => r.type),
      ["turn_start", "user_message", "assistant_message", "turn_end"],
    );
    // The model saw the first exchange, not the torn half of a message.
    const messages = server.requests[1]?.body.messages.slice(1);
    assert.deepEqual(messages, [
      { role: "user", content: "First question" },
      { role: "assistant", content: "First answer." },
      { role: "user", content: "Second question" },
    ]);
  });

  test("a whole last record without its LF is kept, and the next writer ends it first", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("First answer."));
    await runTurn(child, "First question");
    const whole = readFileSync(historyPath(box, session.id));
    const title = JSON.stringify({
      type: "title",
      ts: new Date().toISOString(),
      cwd: readHistory(box, session.id).records[1]?.cwd,
      title: "Renamed",
    });
    appendFileSync(historyPath(box, session.id), title);
    const history = await assertListedAndReadable(child, session.id);
    assert.equal(history.at(-1)?.type, "title", "a parser-valid last line is a record");
    server.reply(text("Second answer."));
    assert.equal((await runTurn(child, "Second question")).result.status, "completed");
    const bytes = readFileSync(historyPath(box, session.id));
    assert.deepEqual(
      bytes.subarray(0, whole.length + title.length + 1),
      Buffer.concat([whole, Buffer.from(`${title}\n`)]),
    );
    const after = assertWholeRecords(box, session.id);
    assert.deepEqual(
      after.slice(-4).map((r) => r.type),
      ["turn_start", "user_message", "assistant_message", "turn_end"],
    );
  });
});
