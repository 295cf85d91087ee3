import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AgentClient, type Capability, ClientError, RemoteError } from "../../src/client/index.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { pause, until, watchRejections, within } from "../helpers/fakes.js";

/** The SDK against the real child (bin/mc-agent.js stdio), foundation methods only. */
describe("SDK against the real child", () => {
  let box: Sandbox;
  const frames: string[] = [];
  const started: AgentClient[] = [];
  const spawnReal = async (capabilities: Capability[]) => {
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        env: {
          PATH: process.env.PATH,
          MC_HOME: box.home,
          HOME: box.home,
          MC_AGENT_TEST_METHODS: "1",
        },
        capabilities,
        trace: (direction, line) => frames.push(`${direction} ${line}`),
      }),
    );
    started.push(client);
    return client;
  };
  before(() => {
    box = sandbox();
  });
  after(async () => {
    // A failed test must not leave a child behind (it would keep the test file alive).
    await Promise.all(started.map((c) => within(c.close())));
    box.cleanup();
  });

  it("negotiates exactly what is asked and decodes limits and (no) extensions", async () => {
    const client = await spawnReal(["operation.cancel"]);
    assert.deepEqual([...client.capabilities], ["operation.cancel"]);
    assert.equal(client.limits.child_requests, 4096);
    assert.equal(client.limits.cleanup_ms, 2000);
    assert.deepEqual(client.extensions, {});
    assert.equal(client.server.name, "mc-agent");
    await within(client.close());
  });

  it("correlates concurrent calls answered out of order", async () => {
    const client = await spawnReal(["operation.cancel"]);
    const slow = client.call("test.sleep", { ms: 300 });
    const fast = client.call("test.sleep", { ms: 10 });
    const status = client.call("status", {});
    const order: string[] = [];
    await within(
      Promise.all([
        slow.then((r) => order.push(`slow:${r.slept_ms}`)),
        fast.then((r) => order.push(`fast:${r.slept_ms}`)),
        status.then((r) => order.push(`status:${r.active_requests.length}`)),
      ]),
    );
    assert.deepEqual(order, ["status:2", "fast:10", "slow:300"]);
    await within(client.close());
  });

  it("abort sends exactly one operation.cancel and rejects with operation_cancelled", async () => {
    const client = await spawnReal(["operation.cancel"]);
    frames.length = 0;
    const controller = new AbortController();
    const call = client.call("test.sleep", { ms: 20_000 }, { signal: controller.signal });
    await until(async () => {
      const status = await client.call("status", {});
      return status.active_requests.some((r) => r.method === "test.sleep");
    }, "the sleep runs");
    controller.abort();
    controller.abort(); // a second abort sends nothing more
    await assert.rejects(
      within(call),
      (e: unknown) => e instanceof RemoteError && e.code === "operation_cancelled",
    );
    const cancels = frames.filter((f) => f.startsWith("out") && f.includes('"operation.cancel"'));
    assert.equal(cancels.length, 1);
    const status = await within(client.call("status", {}));
    assert.deepEqual(status.active_requests, []);
    await within(client.close());
  });

  it("refuses locally what cannot be sent: aborted signal, un-negotiated capability, oversized frame", async () => {
    const client = await spawnReal(["operation.cancel"]);
    const sentBefore = client.requestsSent;
    await assert.rejects(
      client.call("test.sleep", { ms: 1 }, { signal: AbortSignal.abort() }),
      (e: unknown) => e instanceof ClientError && e.code === "aborted",
    );
    await assert.rejects(
      client.call("model.catalog", {}),
      (e: unknown) => e instanceof ClientError && e.code === "not_negotiated",
    );
    await assert.rejects(
      client.call("test.sleep", { ms: 1, padding: "x".repeat(1_100_000) } as never),
      (e: unknown) => e instanceof ClientError && e.code === "frame_too_large",
    );
    assert.equal(client.requestsSent, sentBefore);
    await within(client.close());
  });

  it("close() drains in-flight work, then late frames are ignored and calls fail as closed", async () => {
    const rejections = watchRejections();
    const client = await spawnReal(["operation.cancel"]);
    const inFlight = client.call("test.sleep", { ms: 20_000 });
    const outcome = inFlight.then(
      () => "resolved",
      (e: RemoteError | ClientError) => e.code,
    );
    await within(client.close());
    assert.equal(await outcome, "operation_cancelled");
    await assert.rejects(
      client.call("status", {}),
      (e: unknown) => e instanceof ClientError && e.code === "closed",
    );
    await within(client.close()); // idempotent
    await pause(50);
    rejections.stop();
    assert.deepEqual(rejections.list, []);
  });

  it("a child killed mid-request rejects everything in flight with child_exited", async () => {
    const rejections = watchRejections();
    const client = await spawnReal(["operation.cancel"]);
    const a = client.call("test.sleep", { ms: 20_000 });
    const b = client.call("test.sleep", { ms: 20_000 });
    await pause(50);
    process.kill(client.pid as number, "SIGKILL");
    for (const call of [a, b])
      await assert.rejects(
        within(call),
        (e: unknown) => e instanceof ClientError && e.code === "child_exited",
      );
    await assert.rejects(client.call("status", {}), (e: unknown) => e instanceof ClientError);
    await within(client.close());
    rejections.stop();
    assert.deepEqual(rejections.list, []);
  });

  it("surfaces the child's own errors as RemoteError with the code", async () => {
    const client = await spawnReal(["operation.cancel"]);
    await assert.rejects(
      client.call("operation.cancel", { request_id: "nothing-here" }),
      (e: unknown) =>
        e instanceof RemoteError &&
        e.code === "operation_missing" &&
        e.method === "operation.cancel",
    );
    await within(client.close());
  });
});
