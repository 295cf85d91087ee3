import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { assertCancelled, assertCleanExit, delay, indexOfResponse, within } from "../expect.js";
import type { Frame } from "../frame.js";
import { nextId, type TestChild } from "../harness.js";
import { gate, pathOf, type Route, sendJson } from "../loopback.js";
import {
  codexModels,
  openAiModels,
  readCache,
  renewedTokens,
  writeExpiredCodexAuth,
} from "../provider-home.js";
import { startRefresh, withRefreshWorld } from "../refresh-world.js";

/**
 * Cancelling `model.refresh` in each of its phases: before it starts, while credentials are
 * renewed, while the provider lists its models, while models.dev enriches them, after it
 * finished, and racing shutdown. Every admitted refresh ends with exactly one terminal response;
 * an acknowledged cancel never ends in a result claiming a completed refresh, and nothing is
 * written to the cache after the cancellation was observed.
 */
const CANCEL_CLAUSE =
  "extensions §Deliberate provider refresh: Cancellation polls during catalog HTTP and checks between auth, discovery, enrichment and persistence ... observed cancellation prevents later cache writes.";

/** Holds requests to `held` until the case opens the gate; answers the rest normally. */
function holding(held: string) {
  const door = gate();
  const route: Route = async (request, response) => {
    const path = pathOf(request);
    if (path === held) await door.wait;
    if (path === "/v1/models") return sendJson(response, 200, openAiModels(["demo-1", "demo-2"]));
    if (path === "/oauth/token") return sendJson(response, 200, renewedTokens());
    if (path === "/codex/models") return sendJson(response, 200, codexModels(["gpt-x"]));
    sendJson(response, 200, {});
  };
  return { route, open: door.open };
}

async function cancelAcknowledged(child: TestChild, id: string): Promise<void> {
  const ack = await child.request("operation.cancel", { request_id: id });
  assert.deepEqual(ack.result, { state: "cancelling", request_id: id }, JSON.stringify(ack));
}

export const CANCEL_REFRESH_CASES: ConformanceCase[] = [
  {
    id: "cancel.refresh.before_start",
    tier: "SHOULD",
    clause: CANCEL_CLAUSE,
    title: "refresh cancelled in the same write: operation_cancelled, no provider request",
    async run(ctx) {
      const { route, open } = holding("none");
      await withRefreshWorld(ctx, route, async ({ child, server }) => {
        const id = nextId("refresh");
        const cancelId = nextId("cancel");
        const terminal = child.waitFor((f) => f.id === id, 5000);
        const ack = child.waitFor((f) => f.id === cancelId);
        child.send(
          `${JSON.stringify({ id, method: "model.refresh", params: { provider: "demo" } })}\n` +
            `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: id } })}\n`,
        );
        assert.equal((await ack).result?.state, "cancelling");
        assertCancelled(await terminal, "refresh cancelled before it started");
        assert.equal(server.countOf("/v1/models"), 0, "no provider request after the cancel");
        assert.equal(readCache(ctx.box, "demo"), null, "no cache written");
        open();
      });
    },
  },
  {
    id: "cancel.refresh.during_authentication",
    tier: "MUST",
    clause: CANCEL_CLAUSE,
    title: "cancel during a credential renewal: the listing is never requested, no cache write",
    async run(ctx) {
      const { route, open } = holding("/oauth/token");
      await withRefreshWorld(
        ctx,
        route,
        async ({ child, server }) => {
          const refresh = startRefresh(child, "codex");
          await server.requestsTo("/oauth/token", 1);
          await cancelAcknowledged(child, refresh.id);
          const status = await within(
            child.request("status", {}),
            10_000,
            "status while cancelling",
          );
          assert.equal(status.result?.worker, "busy");
          // The token exchange may finish under its own bounds (the provider may have rotated).
          open();
          assertCancelled(await within(refresh.done, 5000, "terminal response"), "refresh");
          await delay(200);
          assert.equal(server.countOf("/codex/models"), 0, "no listing after the cancellation");
          assert.equal(readCache(ctx.box, "codex"), null, "no cache written");
        },
        () => writeExpiredCodexAuth(ctx.box),
      );
    },
  },
  {
    id: "cancel.refresh.during_listing",
    tier: "MUST",
    clause: CANCEL_CLAUSE,
    title: "cancel while the provider has not answered: prompt operation_cancelled, cache intact",
    async run(ctx) {
      const { route, open } = holding("/v1/models");
      await withRefreshWorld(ctx, route, async ({ child, server }) => {
        const refresh = startRefresh(child);
        await server.requestsTo("/v1/models", 1);
        await cancelAcknowledged(child, refresh.id);
        // Without opening the gate: cancellation polls during catalog HTTP.
        assertCancelled(await within(refresh.done, 3000, "terminal response"), "refresh");
        open();
        await delay(200);
        assert.equal(readCache(ctx.box, "demo"), null, "no cache written");
      });
    },
  },
  {
    id: "cancel.refresh.during_enrichment",
    tier: "MUST",
    clause: CANCEL_CLAUSE,
    title: "cancel while models.dev has not answered: operation_cancelled, nothing written after",
    async run(ctx) {
      const { route, open } = holding("/api.json");
      await withRefreshWorld(ctx, route, async ({ child, server }) => {
        const refresh = startRefresh(child);
        await server.requestsTo("/api.json", 1);
        await cancelAcknowledged(child, refresh.id);
        const terminal = await within(refresh.done, 5000, "terminal response");
        open();
        assertCancelled(terminal, "refresh");
        await delay(300);
        assert.equal(readCache(ctx.box, "demo"), null, "no cache written after the cancel");
      });
    },
  },
  {
    id: "cancel.refresh.twice",
    tier: "MUST",
    clause:
      "base §2: Every admitted request gets exactly one terminal response, cancelled ones included.",
    title: "two cancels of a stalled refresh in one write: one operation_cancelled",
    async run(ctx) {
      const { route, open } = holding("/v1/models");
      await withRefreshWorld(ctx, route, async ({ child, server }) => {
        const refresh = startRefresh(child);
        await server.requestsTo("/v1/models", 1);
        const ids = [nextId("cancel"), nextId("cancel")];
        const acks = ids.map((id) => child.waitFor((f) => f.id === id));
        child.send(
          ids
            .map(
              (id) =>
                `${JSON.stringify({ id, method: "operation.cancel", params: { request_id: refresh.id } })}\n`,
            )
            .join(""),
        );
        const [first, second] = await Promise.all(acks);
        assert.equal(first?.result?.state, "cancelling");
        assert.ok(
          second?.result?.state === "cancelling" || second?.error?.code === "operation_missing",
          JSON.stringify(second),
        );
        assertCancelled(await within(refresh.done, 3000, "terminal response"), "refresh");
        open();
      });
    },
  },
  {
    id: "cancel.refresh.after_completion",
    tier: "MUST",
    clause:
      "extensions §Operation cancellation: Missing/completed/different request returns operation_missing.",
    title: "cancel after a refresh completed: operation_missing, the outcome stands",
    async run(ctx) {
      const { route } = holding("none");
      await withRefreshWorld(ctx, route, async ({ child }) => {
        const refresh = startRefresh(child);
        const done = await refresh.done;
        assert.equal(done.result?.outcome, "refreshed", JSON.stringify(done));
        const late = await child.request("operation.cancel", { request_id: refresh.id });
        assert.equal(late.error?.code, "operation_missing");
        assert.ok(readCache(ctx.box, "demo"), "the completed refresh's cache stays");
      });
    },
  },
  {
    id: "cancel.refresh.racing_shutdown",
    tier: "MUST",
    clause:
      "base §5: shutdown ... cancel everything in flight, wait at most cleanup_ms ... answer {state: stopped}, exit 0.",
    title: "cancel and shutdown in one write during a stalled refresh: one terminal each, exit 0",
    async run(ctx) {
      const { route, open } = holding("/v1/models");
      await withRefreshWorld(ctx, route, async ({ child, server }) => {
        const refresh = startRefresh(child);
        await server.requestsTo("/v1/models", 1);
        const cancelId = nextId("cancel");
        const stopId = nextId("stop");
        const answers: Promise<Frame>[] = [cancelId, stopId].map((id) =>
          child.waitFor((f) => f.id === id, 5000),
        );
        child.send(
          `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: refresh.id } })}\n` +
            `${JSON.stringify({ id: stopId, method: "shutdown", params: {} })}\n`,
        );
        assertCancelled(await within(refresh.done, 3500, "terminal response"), "refresh");
        const [ack, stop] = await Promise.all(answers);
        assert.equal(ack?.result?.state, "cancelling");
        assert.deepEqual(stop?.result, { state: "stopped" });
        assert.ok(indexOfResponse(child, refresh.id) < indexOfResponse(child, stopId));
        await assertCleanExit(child, 3000);
        open();
      });
    },
  },
];
