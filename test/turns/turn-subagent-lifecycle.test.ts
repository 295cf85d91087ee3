/**
 * Issue 41 / docs/turns.md section 13: shutdown, stdin EOF and kill -9 of the child while a
 * subagent runs a command. Nothing outlives the child (the command's whole group ends), the
 * parent's history and the subagent's derived history are whole and readable (the subagent's
 * through `session.subagent_history`), neither is listed twice (`session.list`,
 * `session.discover`), and the turn ends as a turn without subagents ends: shutdown and EOF
 * record `tool_result` and `turn_end` `interrupted` in both histories; after kill -9 both end at
 * a whole record and a new child takes the session over.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { groupRuns } from "../../src/agent/tools/process-group.js";
import { call, text, toolCall, toolCalls } from "../fixtures/chat-completions-server.js";
import { startReady, type TestChild } from "../helpers/child.js";
import { assertWholeRecords, discoveredIds, fullHistory } from "./history-file.js";
import { alive, assertWithinCleanup, shapes, timed } from "./lifecycle-fixtures.js";
import type { Loose } from "./tool-turns.js";
import { lockPath, settled, waitUntil } from "./turn-control-fixtures.js";
import {
  runTurn,
  type StartedTurn,
  startTurn,
  TURN_CAPS,
  type TurnWorld,
  turnWorld,
} from "./turn-harness.js";

const CAPS = [...TURN_CAPS, "subagents"];
const ENV = { DEMO_KEY: "sk-test-secret-key", MC_AGENT_TEST_BACKOFF_PERCENT: "1" };

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface Running {
  turn: StartedTurn;
  sessionId: string;
  subagentId: string;
  /** The command's process group (its shell's pid) and a background process in it. */
  pgid: number;
  background: number;
}

/** A turn whose subagent (at full_access) runs `sleep 120` with a background sleep beside it. */
async function subagentRunningCommand(w: TurnWorld): Promise<Running> {
  const { session } = await w.child.call("session.create", {});
  w.server.reply(
    toolCalls([
      call("agent", { description: "Run", prompt: "run it", permissions: "full_access" }, "c"),
    ]),
    toolCall("shell", { command: "sleep 120 & echo $! > bg.pid; echo $$ > sh.pid; sleep 120" }),
  );
  const turn = startTurn(w.child, "Delegate a long command", "full_access");
  const wrapped = await turn.event("subagent_event");
  const pidFile = join(w.box.workspace, "sh.pid");
  await waitUntil(
    () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
    "the subagent's command to start",
  );
  const pgid = Number(readFileSync(pidFile, "utf8"));
  const background = Number(readFileSync(join(w.box.workspace, "bg.pid"), "utf8"));
  assert.ok(groupRuns(pgid) && alive(background), "the command runs");
  return {
    turn,
    sessionId: session.id,
    subagentId: (wrapped.event as Loose).subagent_id,
    pgid,
    background,
  };
}

const derivedName = (r: Running) => `${r.sessionId}.${r.subagentId}`;

function derivedRecords(w: TurnWorld, r: Running) {
  return assertWholeRecords(w.box, derivedName(r));
}

/** Every page of the subagent's history through the protocol. */
async function subagentHistory(child: TestChild, r: Running): Promise<Loose[]> {
  const events: Loose[] = [];
  let cursor: string | undefined;
  do {
    const page = await child.call("session.subagent_history", {
      id: r.sessionId,
      subagent_id: r.subagentId,
      ...(cursor ? { cursor } : {}),
    });
    events.push(...page.events);
    cursor = page.complete ? undefined : (page.cursor ?? undefined);
  } while (cursor);
  return events;
}

/**
 * After the child is gone: no process left, no lock left (shutdown, EOF) or a new child takes
 * them over (kill -9); both histories read the same through a new child as on disk; only the
 * parent is listed; and the session goes on with a new turn.
 */
async function afterTheChild(w: TurnWorld, r: Running, killed: boolean): Promise<void> {
  await waitUntil(() => !groupRuns(r.pgid), "the command's group to be gone");
  assert.equal(alive(r.background), false, "the background sleep is gone too");
  if (!killed) {
    assert.ok(!existsSync(lockPath(w.box, r.sessionId)), "the parent's lock was removed");
    assert.ok(!existsSync(lockPath(w.box, derivedName(r))), "the subagent's lock was removed");
  }
  const parent = assertWholeRecords(w.box, r.sessionId);
  const derived = derivedRecords(w, r);
  w.child = await startReady(w.box, CAPS, { testMethods: true, env: ENV });
  assert.deepEqual(await fullHistory(w.child, r.sessionId), parent);
  assert.deepEqual(await subagentHistory(w.child, r), derived);
  assert.deepEqual(await discoveredIds(w.child), [r.sessionId], "discover lists the parent only");
  const listed = await w.child.call("session.list", {});
  assert.deepEqual(
    listed.sessions.map((s: Loose) => s.id),
    [r.sessionId],
  );
  // The session goes on: a new turn takes its lock over.
  await w.child.call("session.open", { id: r.sessionId });
  w.server.reply(text("Still here."));
  const next = await runTurn(w.child, "Are you there?");
  assert.equal(next.result.status, "completed");
}

/** Shutdown and EOF: both histories end as an interrupted turn's, the command's call too. */
function assertEndedInterrupted(w: TurnWorld, r: Running): void {
  assert.deepEqual(shapes(assertWholeRecords(w.box, r.sessionId)).slice(-3), [
    "tool_call",
    "tool_result:interrupted",
    "turn_end:interrupted",
  ]);
  assert.deepEqual(shapes(derivedRecords(w, r)).slice(-3), [
    "tool_call",
    "tool_result:interrupted",
    "turn_end:interrupted",
  ]);
}

describe("subagents: the child ends while a subagent runs a command", () => {
  test("shutdown: interrupted and saved in both histories; nothing left running", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    const r = await subagentRunningCommand(w);
    const stopped = await timed(
      (async () => {
        const answer = await w.child.request("shutdown", {});
        await w.child.exited;
        return answer;
      })(),
      "the shutdown answer and the exit",
    );
    assert.deepEqual(stopped.value.result, { state: "stopped" });
    assertWithinCleanup(stopped.ms, "shutdown");
    const { result } = await settled(w.child, r.turn);
    assert.equal(result.status, "interrupted");
    assertEndedInterrupted(w, r);
    await afterTheChild(w, r, false);
  });

  test("stdin EOF: interrupted and saved in both histories; nothing left running", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    const r = await subagentRunningCommand(w);
    const gone = await timed(
      (async () => {
        w.child.closeStdin();
        return w.child.exited;
      })(),
      "the exit after EOF",
    );
    assertWithinCleanup(gone.ms, "EOF");
    const { result } = await settled(w.child, r.turn);
    assert.equal(result.status, "interrupted");
    assertEndedInterrupted(w, r);
    await afterTheChild(w, r, false);
  });

  test("kill -9: the group ends, both histories end at a whole record and are taken over", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    const r = await subagentRunningCommand(w);
    const pid = w.child.pid as number;
    w.child.kill("SIGKILL");
    await w.child.exited;
    assert.equal(alive(pid), false);
    // As any turn killed there: its records so far, whole; no turn_end (nobody was left).
    const parent = shapes(assertWholeRecords(w.box, r.sessionId));
    assert.equal(parent.at(-1), "tool_call", "the parent's agent call, its last record");
    assert.equal(shapes(derivedRecords(w, r)).at(-1), "tool_call", "the subagent's command");
    await afterTheChild(w, r, true);
    assert.ok(
      readdirSync(join(w.box.home, "sessions")).every((n) => !n.endsWith(".tmp")),
      "no temp file",
    );
  });
});
