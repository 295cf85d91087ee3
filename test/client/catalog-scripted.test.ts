import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  AgentClient,
  ClientError,
  explain,
  explainRefresh,
  RemoteError,
} from "../../src/client/index.js";
import { CATALOG, REFRESH } from "../helpers/catalog-fixture.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import {
  requestLog,
  SCRIPTED_CHILD,
  scriptedDir,
  until,
  within,
  writeJson,
} from "../helpers/fakes.js";

/**
 * catalog()/catalogStatus()/refresh()/select() against the scripted fake child, which serves
 * the models methods per contract (revision from cache bytes + refresh epoch, single-use
 * cursors, stale guards after every refresh).
 */
describe("catalog, refresh and select against the scripted child", () => {
  let box: Sandbox;
  let dir: string;
  const frames: string[] = [];
  const started: AgentClient[] = [];
  let onFrame: ((direction: string, line: string) => void) | null = null;
  beforeEach(() => {
    onFrame = null;
    box = sandbox();
    frames.length = 0;
    dir = scriptedDir(box.root, { "catalog.json": CATALOG, "refresh.json": REFRESH });
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((c) => within(c.close())));
    box.cleanup();
  });

  const start = async (env: Record<string, string> = {}) => {
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        command: SCRIPTED_CHILD,
        env: { PATH: process.env.PATH, FAKE_DIR: dir, ...env },
        capabilities: [
          "model.catalog",
          "model.catalog.status",
          "model.refresh",
          "model.select",
          "operation.cancel",
        ],
        trace: (direction, line) => {
          frames.push(`${direction} ${line}`);
          onFrame?.(direction, line);
        },
      }),
    );
    started.push(client);
    return client;
  };
  const sentMethods = () =>
    frames
      .filter((f) => f.startsWith("out "))
      .map((f) => (JSON.parse(f.slice(4)) as { method: string }).method);

  it("reads every catalog page of one revision and decodes the refresh extension", async () => {
    const client = await start({ FAKE_CATALOG_PAGE: "1" });
    assert.equal(client.extensions["model.refresh"]?.preferences, "unchanged");
    const read = await within(client.catalog());
    assert.deepEqual(
      read.choices.map((c) => c.id),
      ["demo/demo-1", "demo/demo-2"],
    );
    assert.equal(sentMethods().filter((m) => m === "model.catalog").length, 2);
    assert.deepEqual(read.notices, [{ code: "catalog_missing", provider: "openai" }]);
    assert.equal(read.guard.revision, read.revision);
  });

  it("catalogStatus explains every provider and keeps valid choices selectable", async () => {
    const client = await start();
    const status = await within(client.catalogStatus());
    assert.equal(status.configurationReload, "restart_child");
    const explained = status.providers.map(explain);
    assert.deepEqual(
      explained.map((e) => e.recovery),
      ["none", "refresh_catalog", "enable_models_and_restart"],
    );
    assert.match(explained[1]?.sentence ?? "", /^openai \(in use\): no catalog has been cached/);
    assert.match(explained[2]?.sentence ?? "", /not checked/);
    assert.equal(explained[1]?.action, 'Fetch openai\'s models: run "mc-agent refresh openai".');
    assert.equal(status.choices.length, 2);
  });

  it("a catalog that changes between pages is read again from the start", async () => {
    const client = await start({ FAKE_CATALOG_PAGE: "1" });
    const first = await within(client.catalog());
    let changed = false;
    onFrame = (direction, line) => {
      // The cache changes right after the first page of the next read arrived.
      if (changed || direction !== "in" || !line.includes('"revision"')) return;
      changed = true;
      writeJson(dir, "catalog.json", { ...CATALOG, choices: CATALOG.choices.slice(0, 1) });
    };
    const second = await within(client.catalog());
    assert.ok(changed);
    assert.notEqual(second.revision, first.revision);
    assert.deepEqual(
      second.choices.map((c) => c.id),
      ["demo/demo-1"],
    );
    // page 1 (old revision), its continuation (stale_revision), then a fresh one-page read.
    assert.equal(sentMethods().filter((m) => m === "model.catalog").length, 2 + 3);
  });

  it("refresh reloads catalog and status and returns a fresh guard; old guards are refused unsent", async () => {
    const client = await start();
    const before = await within(client.catalog());
    const report = await within(client.refresh("openai"));
    assert.equal(report.result.outcome, "refreshed");
    assert.equal(explainRefresh(report.result), "openai: catalog refreshed.");
    assert.ok(report.catalog?.choices.some((c) => c.id === "openai/gpt-x"));
    assert.equal(
      report.status?.providers.find((p) => p.provider === "openai")?.catalog_status,
      "available",
    );
    assert.ok(report.guard);
    assert.notEqual(report.guard.revision, before.guard.revision);
    const selectsBefore = sentMethods().filter((m) => m === "model.select").length;
    await assert.rejects(
      client.select("demo/demo-1", "high", before.guard),
      (e: unknown) => e instanceof ClientError && e.code === "stale_guard",
    );
    assert.equal(sentMethods().filter((m) => m === "model.select").length, selectsBefore);
    const selected = await within(client.select("openai/gpt-x", "medium", report.guard));
    assert.deepEqual(selected.selection, { model: "openai/gpt-x", effort: "medium" });
  });

  it("nothing is selected automatically: catalog reads and refreshes never send model.select", async () => {
    const client = await start();
    await within(client.catalog());
    await within(client.catalogStatus());
    await within(client.refresh("openai"));
    assert.ok(!sentMethods().includes("model.select"));
    const status = await within(client.call("status", {}));
    assert.deepEqual(status.selection, { model: null, effort: null });
  });

  it("a failed refresh reports its reason, still reloads, and still kills earlier guards", async () => {
    const client = await start();
    const before = await within(client.catalog());
    const report = await within(client.refresh("limited"));
    assert.equal(report.result.outcome, "failed");
    assert.match(explainRefresh(report.result), /rate limiting/);
    assert.notEqual(report.guard?.revision, before.guard.revision);
    await assert.rejects(
      client.select("demo/demo-1", null, before.guard),
      (e: unknown) => e instanceof ClientError,
    );
  });

  it("abort of a refresh sends exactly one operation.cancel and rejects with operation_cancelled", async () => {
    const client = await start();
    const controller = new AbortController();
    const running = client.refresh("slow", { signal: controller.signal });
    await until(() => requestLog(dir).includes("model.refresh"), "the refresh was received");
    controller.abort();
    await assert.rejects(
      within(running),
      (e: unknown) => e instanceof RemoteError && e.code === "operation_cancelled",
    );
    assert.equal(sentMethods().filter((m) => m === "operation.cancel").length, 1);
    // Cancelled: no reload was attempted on its behalf.
    assert.ok(!sentMethods().includes("model.catalog"));
  });

  it("the child's own guard check still applies: a guard from another revision is stale_revision", async () => {
    const client = await start();
    const read = await within(client.catalog());
    writeJson(dir, "catalog.json", { ...CATALOG, notices: [] });
    await assert.rejects(
      within(client.select("demo/demo-1", "low", read.guard)),
      (e: unknown) => e instanceof RemoteError && e.code === "stale_revision",
    );
    const fresh = await within(client.catalog());
    await assert.rejects(
      within(client.select("demo/demo-2", "low", fresh.guard)),
      (e: unknown) => e instanceof RemoteError && e.code === "invalid_params",
    );
  });
});
