import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  AgentClient,
  ClientError,
  type DiscoveryEvent,
  RemoteError,
} from "../../src/client/index.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import {
  entry,
  SCRIPTED_CHILD,
  scriptedDir,
  spawnCount,
  within,
  writeJson,
} from "../helpers/fakes.js";

/**
 * Discovery logic against the scripted fake child (test/fixtures/scripted-child.ts), which
 * serves session.discover per contract: single-use cursors, empty progress pages, final
 * validation that answers stale_revision when the inventory changed, child_exhausted past its
 * lifetime bound.
 */
describe("discoverSessions against the scripted child", () => {
  let box: Sandbox;
  let dir: string;
  const frames: string[] = [];
  beforeEach(() => {
    box = sandbox();
    frames.length = 0;
    dir = scriptedDir(box.root, {
      "sessions.json": {
        sessions: [entry("a"), entry("b"), entry("c")],
        notices: [{ code: "cwd_unverified", count: 1 }],
      },
    });
  });
  const started: AgentClient[] = [];
  afterEach(async () => {
    // A failed test must not leave a child behind (it would keep the test file alive).
    await Promise.all(started.splice(0).map((c) => within(c.close())));
    box.cleanup();
  });

  const start = async (env: Record<string, string> = {}) => {
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        command: SCRIPTED_CHILD,
        env: { PATH: process.env.PATH, FAKE_DIR: dir, ...env },
        capabilities: ["session.discover", "session.open", "session.history", "operation.cancel"],
        trace: (direction, line) => frames.push(`${direction} ${line}`),
      }),
    );
    started.push(client);
    return client;
  };

  it("follows every cursor, empty progress pages included, to validated completion", async () => {
    const client = await start();
    assert.equal(client.extensions["session.discover"]?.consistency, "provisional_until_complete");
    const events: DiscoveryEvent[] = [];
    const result = await within(client.discoverSessions({ onProgress: (e) => events.push(e) }));
    assert.deepEqual(
      result.sessions.map((s) => s.id),
      ["a", "b", "c"],
    );
    assert.deepEqual(result.notices, [{ code: "cwd_unverified", count: 1 }]);
    assert.equal(result.attempts, 1);
    const progress = events.map((e) => (e.kind === "page" ? e.progress : e.kind));
    assert.deepEqual(progress, [
      "page_entries",
      "history_work",
      "page_entries",
      "inventory_validation",
      "complete",
    ]);
    // Each continuation used the cursor of the page before it, exactly once.
    const sent = frames
      .filter((f) => f.startsWith("out "))
      .map((f) => JSON.parse(f.slice(4)) as { method: string; params: { cursor?: string } })
      .filter((f) => f.method === "session.discover");
    const cursors = sent.map((f) => f.params.cursor ?? null);
    assert.deepEqual(cursors, [null, "d1", "d2", "d3", "d4"]);
    await within(client.close());
  });

  it("on stale_revision discards the provisional rows and restarts: the result is the new set", async () => {
    const client = await start();
    const events: DiscoveryEvent[] = [];
    let mutated = false;
    const result = await within(
      client.discoverSessions({
        onProgress: (event) => {
          events.push(event);
          if (!mutated && event.kind === "page") {
            mutated = true; // a history changes while the scan runs
            writeJson(dir, "sessions.json", { sessions: [entry("a"), entry("c"), entry("d")] });
          }
        },
      }),
    );
    assert.deepEqual(
      result.sessions.map((s) => s.id),
      ["a", "c", "d"],
    );
    assert.equal(result.attempts, 2);
    assert.ok(events.some((e) => e.kind === "restart" && e.reason === "stale_revision"));
    // The first attempt's provisional rows included b; the completed result never does.
    const firstAttemptRows = events.flatMap((e) =>
      e.kind === "page" && e.attempt === 1 ? e.provisional : [],
    );
    assert.ok(firstAttemptRows.some((row) => row.id === "b"));
    await within(client.close());
  });

  it("gives up with discovery_unstable after its bounded retries", async () => {
    const client = await start();
    let n = 0;
    await assert.rejects(
      within(
        client.discoverSessions({
          maxStaleRetries: 2,
          onProgress: (event) => {
            if (event.kind === "page" && event.pages === 1)
              writeJson(dir, "sessions.json", { sessions: [entry(`x${n++}`)] });
          },
        }),
      ),
      (e: unknown) => e instanceof ClientError && e.code === "discovery_unstable",
    );
    assert.equal(n, 3); // the first scan and two retries
    await within(client.close());
  });

  it("on child_exhausted starts a new child and completes the scan there", async () => {
    // A child admits 7 requests. The first: initialize + 4 spent + 2 discovery steps, then it is
    // exhausted; the new one: initialize + 5 discovery steps + 1 open.
    const client = await start({ FAKE_CHILD_REQUESTS: "7" });
    for (let i = 0; i < 4; i += 1)
      await assert.rejects(
        client.call("operation.cancel", { request_id: `gone${i}` }),
        RemoteError,
      );
    const firstPid = client.pid;
    const events: DiscoveryEvent[] = [];
    const result = await within(client.discoverSessions({ onProgress: (e) => events.push(e) }));
    assert.deepEqual(
      result.sessions.map((s) => s.id),
      ["a", "b", "c"],
    );
    assert.equal(result.childRestarts, 1);
    assert.equal(spawnCount(dir), 2);
    assert.notEqual(client.pid, firstPid);
    assert.ok(events.some((e) => e.kind === "restart" && e.reason === "child_exhausted"));
    // The new child works for the rest of the flow too.
    assert.equal((await within(client.open("b"))).id, "b");
    await within(client.close());
  });

  it("a child that stays exhausted ends in restart_limit, not a loop", async () => {
    const client = await start({ FAKE_CHILD_REQUESTS: "2" });
    await assert.rejects(
      within(client.discoverSessions({ maxChildRestarts: 1 })),
      (e: unknown) => e instanceof ClientError && e.code === "restart_limit",
    );
    assert.equal(spawnCount(dir), 2);
    await within(client.close());
  });

  it("aborting discovery cancels the running step; a new discovery starts fresh", async () => {
    const client = await start({ FAKE_STEP_MS: "300" });
    const controller = new AbortController();
    const running = client.discoverSessions({ signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(
      within(running),
      (e: unknown) => e instanceof RemoteError && e.code === "operation_cancelled",
    );
    const result = await within(client.discoverSessions());
    assert.equal(result.sessions.length, 3);
    await within(client.close());
  });

  it("exact open and paged history of a chosen ID", async () => {
    writeJson(dir, "history-b.json", [
      { type: "session_meta", ts: "2026-11-29T10:00:00.000Z", id: "b" },
      { type: "user_message", ts: "2026-11-29T10:01:00.000Z", text: "hello" },
      {
        type: "assistant_message",
        ts: "2026-11-29T10:02:00.000Z",
        text: "hi",
        model: "demo/demo-1",
      },
    ]);
    const client = await start();
    assert.equal((await within(client.open("b"))).title, "Session b");
    const pages: number[] = [];
    for await (const events of client.history("b")) pages.push(events.length);
    assert.deepEqual(pages, [2, 1]);
    await assert.rejects(
      within(client.open("zz")),
      (e: unknown) => e instanceof RemoteError && e.code === "session_missing",
    );
    await within(client.close());
  });
});
