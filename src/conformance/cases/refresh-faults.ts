import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { assertCancelled, assertCleanExit, within } from "../expect.js";
import { lockFolder, tinyDisk } from "../fault-injection.js";
import { nextId } from "../harness.js";
import { pathOf, type Route, sendJson, stallMidBody } from "../loopback.js";
import { manyModelIds, openAiModels, readCache } from "../provider-home.js";
import { refreshOk, startRefresh, withRefreshWorld } from "../refresh-world.js";

/**
 * Faults around `model.refresh`: a provider that stalls mid-body, a cache folder that cannot be
 * written, a disk that is full. Each starts from a cache written by an earlier successful
 * refresh, and checks that the fault leaves its bytes exactly as they were.
 */
const PRESERVE =
  "extensions §Deliberate provider refresh: Failed remote/auth/rate-limit/validation requests preserve previous cache bytes and selection.";
const CLEANUP =
  "extensions §Deliberate provider refresh: Cleanup still waits at most 2000 ms, independent of worker completion.";

/** Serves demo-1 on the first listing and stalls mid-body on every later one. */
function stallAfterFirst(): Route {
  let listings = 0;
  return (request, response) => {
    if (pathOf(request) === "/v1/models") {
      listings += 1;
      if (listings === 1) return sendJson(response, 200, openAiModels(["demo-1"]));
      return stallMidBody(response, openAiModels(["demo-1", "demo-2"]));
    }
    sendJson(response, 200, {});
  };
}

export const REFRESH_FAULT_CASES: ConformanceCase[] = [
  {
    id: "faults.refresh.stall_mid_body.cancel",
    tier: "MUST",
    clause:
      "extensions §Deliberate provider refresh: Cancellation polls during catalog HTTP ... Cancellation returns operation_cancelled, not an outcome claiming completed refresh.",
    title:
      "a provider that stalls mid-body: status answers, cancel ends it, the cache is untouched",
    async run(ctx) {
      await withRefreshWorld(ctx, stallAfterFirst(), async ({ child, server }) => {
        await refreshOk(child);
        const before = readCache(ctx.box, "demo");
        assert.ok(before, "the first refresh wrote a cache");
        const refresh = startRefresh(child);
        await server.requestsTo("/v1/models", 2);
        const status = await within(child.request("status", {}), 10_000, "status during the stall");
        assert.deepEqual(
          ((status.result?.active_requests ?? []) as { id: string }[]).map((a) => a.id),
          [refresh.id],
        );
        const ack = await child.request("operation.cancel", { request_id: refresh.id });
        assert.equal(ack.result?.state, "cancelling");
        assertCancelled(await within(refresh.done, 3000, "terminal response"), "stalled refresh");
        assert.deepEqual(readCache(ctx.box, "demo"), before, "cache bytes unchanged");
      });
    },
  },
  {
    id: "faults.refresh.stall_mid_body.shutdown",
    tier: "MUST",
    clause: CLEANUP,
    title: "shutdown while a provider stalls mid-body: answered within the bound, exit 0",
    async run(ctx) {
      await withRefreshWorld(ctx, stallAfterFirst(), async ({ child, server }) => {
        await refreshOk(child);
        const before = readCache(ctx.box, "demo");
        const refresh = startRefresh(child);
        await server.requestsTo("/v1/models", 2);
        const started = Date.now();
        const stop = child.request("shutdown", {}, nextId("stop"), 5000);
        assertCancelled(await within(refresh.done, 3500, "terminal response"), "refresh");
        assert.deepEqual((await stop).result, { state: "stopped" });
        assert.ok(Date.now() - started < 3500, "stopped within the cleanup bound plus slack");
        await assertCleanExit(child, 3000);
        assert.deepEqual(readCache(ctx.box, "demo"), before, "cache bytes unchanged");
      });
    },
  },
  {
    id: "faults.refresh.cache_write.read_only",
    tier: "MUST",
    clause: `${PRESERVE} (reason cache_write_failed)`,
    title: "a cache folder that cannot be written: cache_write_failed, previous bytes intact",
    async run(ctx) {
      let second = false;
      const route: Route = (request, response) => {
        if (pathOf(request) !== "/v1/models") return sendJson(response, 200, {});
        const ids = second ? ["demo-1", "demo-2"] : ["demo-1"];
        second = true;
        sendJson(response, 200, openAiModels(ids));
      };
      await withRefreshWorld(ctx, route, async ({ child }) => {
        await refreshOk(child);
        const before = readCache(ctx.box, "demo");
        await lockFolder(ctx.box, "cache/models", async () => {
          const frame = await startRefresh(child).done;
          assert.equal(frame.result?.outcome, "failed", JSON.stringify(frame));
          assert.equal(frame.result?.reason, "cache_write_failed");
        });
        assert.deepEqual(readCache(ctx.box, "demo"), before, "cache bytes unchanged");
      });
    },
  },
  {
    id: "faults.refresh.cache_write.full_disk",
    tier: "MUST",
    clause: `${PRESERVE} (reason cache_write_failed)`,
    title: "a full disk under the cache: cache_write_failed, previous bytes intact",
    async run(ctx) {
      let second = false;
      const route: Route = (request, response) => {
        if (pathOf(request) !== "/v1/models") return sendJson(response, 200, {});
        const ids = second ? ["demo-1", ...manyModelIds(400, "big")] : ["demo-1"];
        second = true;
        sendJson(response, 200, openAiModels(ids));
      };
      await tinyDisk(ctx.box, "cache/models", async (fill) => {
        await withRefreshWorld(ctx, route, async ({ child }) => {
          await refreshOk(child);
          const before = readCache(ctx.box, "demo");
          fill();
          const frame = await startRefresh(child).done;
          assert.equal(frame.result?.outcome, "failed", JSON.stringify(frame));
          assert.equal(frame.result?.reason, "cache_write_failed");
          assert.deepEqual(readCache(ctx.box, "demo"), before, "cache bytes unchanged");
        });
      });
    },
  },
];
