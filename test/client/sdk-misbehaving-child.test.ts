import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AgentClient, ClientError, type ClientErrorCode } from "../../src/client/index.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import {
  badChild,
  pause,
  SCRIPTED_CHILD,
  scriptedDir,
  watchRejections,
  within,
} from "../helpers/fakes.js";

/** The SDK against deliberately misbehaving fake children (test/fixtures/bad-child.ts). */
describe("SDK against a misbehaving child", () => {
  let box: Sandbox;
  before(() => {
    box = sandbox();
  });
  after(async () => {
    await Promise.all(started.map((c) => within(c.close())));
    box.cleanup();
  });

  const started: AgentClient[] = [];
  const start = async (mode: string) => {
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        command: badChild(mode),
        capabilities: ["operation.cancel"],
      }),
    );
    started.push(client);
    return client;
  };

  const isClientError = (code: ClientErrorCode) => (e: unknown) =>
    e instanceof ClientError && e.code === code && e.message.length > 0;

  for (const [mode, what] of [
    ["garbage", "a line that is not JSON"],
    ["unknown-id", "a response to an ID never sent"],
    ["null-id", "an uncorrelated error"],
  ] as const) {
    it(`stops a child that sends ${what} and rejects every pending call`, async () => {
      const rejections = watchRejections();
      const client = await start(mode);
      const calls = [client.call("status", {}), client.call("status", {})];
      for (const call of calls)
        await assert.rejects(within(call), isClientError("protocol_violation"));
      await assert.rejects(within(client.call("status", {})), isClientError("protocol_violation"));
      await within(client.close());
      rejections.stop();
      assert.deepEqual(rejections.list, []);
    });
  }

  it("rejects a result outside the method's schema as invalid_response, and goes on", async () => {
    const client = await start("wrong-result");
    await assert.rejects(within(client.call("status", {})), isClientError("invalid_response"));
    await assert.rejects(within(client.call("status", {})), isClientError("invalid_response"));
    await within(client.close());
  });

  it("a child that dies mid-request: child_exited for everything in flight, no hang", async () => {
    const rejections = watchRejections();
    const client = await start("die");
    const calls = [client.call("status", {}), client.call("status", {})];
    for (const call of calls) await assert.rejects(within(call), isClientError("child_exited"));
    await within(client.close());
    rejections.stop();
    assert.deepEqual(rejections.list, []);
  });

  it("reassembles frames split across writes and correlates them out of order", async () => {
    const client = await start("split");
    const [a, b] = await within(
      Promise.all([client.call("status", {}), client.call("status", {})]),
    );
    assert.equal(a.cwd, "/fake");
    assert.equal(b.cwd, "/fake");
    await within(client.close());
  });

  it("ignores frames that arrive after the shutdown answer", async () => {
    const rejections = watchRejections();
    const client = await start("late");
    const held = client.call("operation.cancel", { request_id: "x" });
    const outcome = held.then(
      () => "resolved",
      (e: ClientError) => e.code,
    );
    await within(client.close());
    assert.equal(await outcome, "closed");
    await pause(300);
    rejections.stop();
    assert.deepEqual(rejections.list, []);
  });

  it("kills a child that ignores shutdown and EOF after the cleanup bound", async () => {
    const client = await start("deaf");
    const held = client.call("status", {});
    const started = Date.now();
    await within(client.close(), 8000);
    await assert.rejects(held, isClientError("closed"));
    assert.ok(Date.now() - started >= 2000, "close waited the cleanup bound before killing");
  });

  it("a command that cannot start fails spawn with spawn_failed", async () => {
    await assert.rejects(
      within(
        AgentClient.spawn({
          cwd: box.workspace,
          command: ["/nonexistent/mc-agent"],
          capabilities: [],
        }),
      ),
      isClientError("spawn_failed"),
    );
  });

  it("a refused capability fails spawn with unsupported_capability and stops the child", async () => {
    const dir = scriptedDir(box.root, { "sessions.json": { sessions: [] } });
    await assert.rejects(
      within(
        AgentClient.spawn({
          cwd: box.workspace,
          command: SCRIPTED_CHILD,
          env: { PATH: process.env.PATH, FAKE_DIR: dir, FAKE_CAPABILITIES: "session.open" },
          capabilities: ["session.discover"],
        }),
      ),
      (e: unknown) =>
        e instanceof Error &&
        "code" in e &&
        e.code === "unsupported_capability" &&
        /session\.discover/.test(e.message),
    );
  });

  it("an mcp.changed in the same chunk as the initialize answer is delivered, not a violation", async () => {
    const seen: unknown[] = [];
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        command: badChild("mcp-at-once"),
        capabilities: ["mcp"],
        onMcpChanged: (status) => seen.push(status),
      }),
    );
    started.push(client);
    // The connection still answers: it was not stopped for a protocol violation.
    const servers = await within(client.mcpStatus());
    assert.deepEqual(
      servers.map((s) => s.state),
      ["failed"],
    );
    assert.deepEqual(seen, servers);
  });
});
