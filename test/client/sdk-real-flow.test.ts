import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  AgentClient,
  type Capability,
  type DiscoveryEvent,
  RemoteError,
} from "../../src/client/index.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { until, within } from "../helpers/fakes.js";
import {
  loopbackProvider,
  realChildOffers,
  writeHistory,
  writeProviderSettings,
} from "../helpers/real-home.js";

/**
 * The client flow against the real child and a real store. Each test skips, saying why, when
 * this build's child does not offer the capabilities yet (the domain has not landed).
 */
describe("SDK client flow against the real child", () => {
  let box: Sandbox;
  const started: AgentClient[] = [];
  const frames: string[] = [];
  beforeEach(() => {
    box = sandbox();
    frames.length = 0;
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((c) => within(c.close())));
    box.cleanup();
  });
  const start = async (capabilities: Capability[], env: Record<string, string> = {}) => {
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        env: { PATH: process.env.PATH, MC_HOME: box.home, HOME: box.home, ...env },
        capabilities,
        trace: (direction, line) => frames.push(`${direction} ${line}`),
      }),
    );
    started.push(client);
    return client;
  };
  const sent = (method: string) =>
    frames.filter(
      (f) =>
        f.startsWith("out ") && (JSON.parse(f.slice(4)) as { method: string }).method === method,
    ).length;
  const skipUnless = async (t: { skip: (why: string) => void }, caps: Capability[]) => {
    const ok = await realChildOffers(box.workspace, box.home, caps);
    if (!ok) t.skip(`this build's child does not offer ${caps.join(", ")} yet`);
    return ok;
  };

  /** 120 histories: more than one page (page_entries 100), so a scan takes several steps. */
  const manySessions = () => {
    for (let i = 0; i < 120; i += 1)
      writeHistory(box.home, `s${String(i).padStart(3, "0")}`, box.workspace);
  };

  it("a discovery that meets a mutation restarts and ends with the right set", async (t) => {
    if (!(await skipUnless(t, ["session.discover"]))) return;
    manySessions();
    const client = await start(["session.discover"]);
    const events: DiscoveryEvent[] = [];
    let mutated = false;
    const result = await within(
      client.discoverSessions({
        onProgress: (event) => {
          events.push(event);
          if (!mutated && event.kind === "page" && event.provisional.length > 0) {
            mutated = true;
            writeHistory(box.home, "s999", box.workspace, "Added during the scan");
            appendFileSync(
              join(box.home, "sessions", "s000.jsonl"),
              `${JSON.stringify({ type: "mode", ts: "2026-11-29T12:00:00.000Z", cwd: box.workspace, mode: "plan" })}\n`,
            );
          }
        },
      }),
      30_000,
    );
    assert.ok(mutated, "the scan yielded a provisional page to mutate after");
    assert.ok(events.some((e) => e.kind === "restart" && e.reason === "stale_revision"));
    assert.ok(result.attempts >= 2);
    const ids = result.sessions.map((s) => s.id).sort();
    assert.equal(ids.length, 121);
    assert.equal(new Set(ids).size, 121);
    assert.ok(ids.includes("s999"));
  });

  it("a discovery across child_exhausted completes in a new child", async (t) => {
    if (!(await skipUnless(t, ["session.discover", "operation.cancel"]))) return;
    manySessions();
    const client = await start(["session.discover", "operation.cancel"]);
    const firstPid = client.pid;
    // Spend the child's lifetime down to one request (initialize used one).
    const spend = client.limits.child_requests - 2;
    for (let done = 0; done < spend; done += 512) {
      const batch = Math.min(512, spend - done);
      await within(
        Promise.all(
          Array.from({ length: batch }, (_, i) =>
            client
              .call("operation.cancel", { request_id: `gone-${done + i}` })
              .catch((e: RemoteError) => e.code),
          ),
        ),
      );
    }
    assert.equal((await client.call("status", {})).requests_left, 1);
    const result = await within(client.discoverSessions(), 30_000);
    assert.equal(result.childRestarts, 1);
    assert.notEqual(client.pid, firstPid);
    assert.equal(result.sessions.length, 120);
  });

  it("abort of a refresh sends exactly one operation.cancel and rejects with operation_cancelled", async (t) => {
    const caps: Capability[] = [
      "model.refresh",
      "model.catalog",
      "model.catalog.status",
      "operation.cancel",
    ];
    if (!(await skipUnless(t, caps))) return;
    const provider = await loopbackProvider({ models: ["m1"], stall: true });
    try {
      writeProviderSettings(box.home, "slowp", provider.url, ["slowp/m1"]);
      const client = await start(caps, { TEST_PROVIDER_KEY: "k" });
      const controller = new AbortController();
      const running = client.refresh("slowp", { signal: controller.signal });
      await until(async () => {
        const status = await client.call("status", {});
        return status.active_requests.length > 0;
      }, "the refresh runs");
      const status = await within(client.call("status", {}));
      assert.equal(status.active_requests[0]?.method, "model.refresh");
      controller.abort();
      await assert.rejects(
        within(running),
        (e: unknown) => e instanceof RemoteError && e.code === "operation_cancelled",
      );
      assert.equal(sent("operation.cancel"), 1);
      assert.equal(sent("model.catalog"), 0, "no reload claimed for a cancelled refresh");
    } finally {
      await provider.close();
    }
  });

  it("refresh, reload, and explicit selection with the fresh guard", async (t) => {
    const caps: Capability[] = [
      "model.refresh",
      "model.catalog",
      "model.catalog.status",
      "model.select",
    ];
    if (!(await skipUnless(t, caps))) return;
    const provider = await loopbackProvider({ models: ["m1", "m2"] });
    try {
      writeProviderSettings(box.home, "lp", provider.url, ["lp/m1"]);
      const client = await start(caps, { TEST_PROVIDER_KEY: "k" });
      const before = await within(client.catalogStatus());
      assert.equal(before.providers.find((p) => p.provider === "lp")?.recovery, "refresh_catalog");
      const report = await within(client.refresh("lp"));
      assert.equal(report.result.outcome, "refreshed");
      assert.deepEqual(
        report.catalog?.choices.map((c) => c.id),
        ["lp/m1"],
      );
      await assert.rejects(client.select("lp/m1", null, before.guard), { code: "stale_guard" });
      const chosen = await within(client.select("lp/m1", null, report.guard ?? before.guard));
      assert.equal(chosen.selection.model, "lp/m1");
    } finally {
      await provider.close();
    }
  });
});
