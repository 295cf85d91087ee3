/**
 * `PreCompact` hooks (docs/hooks.md): they run before a compaction's summary is asked for,
 * proactive (past 85% of a known window) and reactive (the provider answered "too long"), with
 * Claude Code's stdin (`trigger: "auto"`, `custom_instructions: ""`); a block (exit 2 or JSON
 * `decision: "block"`) stops nothing and is shown in `hook_done`; an interrupt while the hook
 * runs ends the turn before any summary is asked for. mc-agent has no manual compaction.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { SUMMARY_INSTRUCTION } from "../../src/agent/compaction.js";
import { contextTooLong, text } from "../fixtures/chat-completions-server.js";
import { sandbox } from "../helpers/child.js";
import { fullHistory } from "./history-file.js";
import {
  runTurn,
  startTurn,
  TURN_CAPS,
  type TurnWorld,
  turnWorld,
  typesOf,
} from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A window of 4000 tokens: proactive compaction starts past 3400 estimated tokens. */
const SMALL = [{ id: "demo-1", name: "Demo 1", context_window: 4000 }];

/** A world whose `PreCompact` hook is `command(root)`, with `hooks` negotiated. */
async function compactWorld(
  command: (root: string) => string,
  models?: typeof SMALL,
): Promise<TurnWorld> {
  const box = sandbox("mc-precompact-");
  return turnWorld({
    box,
    ...(models ? { models } : {}),
    capabilities: [...TURN_CAPS, "hooks"],
    config: {
      hooks: { PreCompact: [{ hooks: [{ type: "command", command: command(box.root) }] }] },
    },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: event bodies read freely.
type Loose = any;
const bodies = (events: Loose[], type: string) =>
  events.map((e) => e.event).filter((e: Loose) => e.type === type);

function checkStdin(root: string, w: TurnWorld, sessionId: string): void {
  const stdin = JSON.parse(readFileSync(join(root, "precompact.json"), "utf8"));
  assert.equal(stdin.hook_event_name, "PreCompact");
  assert.equal(stdin.trigger, "auto");
  assert.equal(stdin.custom_instructions, "");
  assert.equal(stdin.session_id, sessionId);
  assert.equal(stdin.cwd, w.box.workspace);
  assert.equal(stdin.transcript_path, join(w.box.home, "sessions", `${sessionId}.jsonl`));
  assert.equal(stdin.permissions, "ask");
}

describe("hooks: PreCompact", () => {
  test("proactive compaction: the hook runs once before the summary, its exit 2 blocks nothing", async () => {
    const log = (root: string) =>
      `cat > '${root}/precompact.json'; echo 'compaction noted' >&2; exit 2`;
    world = await compactWorld(log, SMALL);
    const { child, server, box } = world;
    const root = join(box.home, "..");
    const { session } = await child.call("session.create", {});
    server.reply(text("b".repeat(4000)));
    const first = await runTurn(child, "a".repeat(4000), "ask");
    assert.ok(!typesOf(first.events).includes("hook_started"), "no compaction, no PreCompact");
    assert.ok(!existsSync(join(root, "precompact.json")));
    server.reply(text("Summary: long texts."), text("Done."));
    const second = await runTurn(child, "i".repeat(6000), "ask");
    assert.equal(second.result.status, "completed", JSON.stringify(second.result.error));
    const types = typesOf(second.events);
    assert.deepEqual(
      types.filter((t) => t === "hook_started" || t === "hook_done" || t === "compacted"),
      ["hook_started", "hook_done", "compacted"],
      "the hook ran once, before the compaction",
    );
    assert.equal(bodies(second.events, "hook_started")[0].event, "PreCompact");
    const done = bodies(second.events, "hook_done")[0];
    assert.equal(done.status, "blocked");
    assert.match(done.message, /compaction noted/);
    // The block held nothing back: the summary was asked for and the turn went on from it.
    assert.deepEqual(server.requests[1]?.body.messages.at(-1), {
      role: "user",
      content: SUMMARY_INSTRUCTION,
    });
    assert.equal(server.requests.length, 3);
    checkStdin(root, world, session.id);
    const records = (await fullHistory(child, session.id)).map((r) => r.type);
    assert.equal(records.filter((t) => t === "compaction").length, 1);
  });

  test("reactive compaction: the hook runs, its JSON block is shown and the call is retried", async () => {
    const block = (root: string) =>
      `cat > '${root}/precompact.json'; echo '{"decision":"block","reason":"keep the details"}'`;
    world = await compactWorld(block);
    const { child, server, box } = world;
    const root = join(box.home, "..");
    const { session } = await child.call("session.create", {});
    server.reply(text("Earlier answer."));
    await runTurn(child, "Earlier question", "ask");
    server.reply(contextTooLong(), text("Summary: an earlier exchange."), text("Retried fine."));
    const { result, events } = await runTurn(child, "Now this", "ask");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(server.requests.length, 4, "too long, the summary, the retried call");
    const done = bodies(events, "hook_done");
    assert.deepEqual(
      done.map((d: Loose) => [d.status, d.message]),
      [["blocked", "keep the details"]],
    );
    assert.equal(typesOf(events).filter((t) => t === "compacted").length, 1);
    checkStdin(root, world, session.id);
  });

  test("an interrupt while the hook runs ends the turn before any summary is asked for", async () => {
    const slow = (root: string) => `cat > '${root}/precompact.json'; sleep 30`;
    world = await compactWorld(slow, SMALL);
    const { child, server } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("b".repeat(4000)));
    await runTurn(child, "a".repeat(4000), "ask");
    server.reply(text("Summary: never asked."), text("Never sent."));
    const turn = startTurn(child, "i".repeat(6000), "ask");
    await turn.event("hook_started");
    await child.call("turn.interrupt", { request_id: turn.id });
    const frame = await turn.response;
    assert.equal((frame.result as Loose)?.status, "interrupted", JSON.stringify(frame));
    assert.equal(server.requests.length, 1, "no summary call, no model call");
    assert.ok(!typesOf(turn.events()).includes("compacted"));
    assert.equal(bodies(turn.events(), "hook_done")[0]?.status, "failed");
    const records = (await fullHistory(child, session.id)).map((r) => r.type);
    assert.ok(!records.includes("compaction"));
  });
});
