import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import type { TestChild } from "../harness.js";
import { closedPort, pathOf, type Route, sendJson } from "../loopback.js";
import { openAiModels, readCache, writeProviderHome } from "../provider-home.js";
import { refreshOk, startRefresh, withRefreshWorld } from "../refresh-world.js";
import { readyOrSkip } from "../skip.js";

/**
 * The model contract's core promises as kit cases: revision guards, selection that never writes
 * settings, scoped provider status without authentication work for unused providers, failed
 * refreshes that keep the cache, and capabilities that must be negotiated.
 */
const listing: Route = (request, response) => {
  if (pathOf(request) === "/v1/models") {
    return sendJson(response, 200, openAiModels(["demo-1", "demo-2"]));
  }
  sendJson(response, 200, {});
};

async function revision(child: TestChild): Promise<string> {
  const catalog = await child.request("model.catalog", {});
  assert.ok(catalog.result, JSON.stringify(catalog.error));
  return catalog.result.revision as string;
}

export const MODEL_CASES: ConformanceCase[] = [
  {
    id: "models.select.guards",
    tier: "MUST",
    clause:
      "base §7: model.select ... A catalog_revision other than the current one is stale_revision; a model that is not a selectable choice is model_unavailable ... It changes no settings file. Extensions: every admitted refresh invalidates selection guards.",
    title: "select with the current revision; stale after a refresh; disabled model unavailable",
    async run(ctx) {
      await withRefreshWorld(ctx, listing, async ({ child }) => {
        await refreshOk(child);
        const config = readFileSync(join(ctx.box.home, "config.json"));
        const current = await revision(child);
        const select = (model: string, rev: string) =>
          child.request("model.select", { model, effort: null, catalog_revision: rev });
        const chosen = await select("demo/demo-1", current);
        assert.ok(chosen.result, JSON.stringify(chosen.error));
        const status = await child.request("status", {});
        const selection = status.result?.selection as { model: string } | undefined;
        assert.equal(selection?.model, "demo/demo-1");
        assert.equal((await select("demo/demo-2", current)).error?.code, "model_unavailable");
        assert.equal((await select("demo/demo-1", "x1")).error?.code, "stale_revision");
        await refreshOk(child);
        assert.equal((await select("demo/demo-1", current)).error?.code, "stale_revision");
        assert.deepEqual(readFileSync(join(ctx.box.home, "config.json")), config);
      });
    },
  },
  {
    id: "models.status.unused_providers_not_checked",
    tier: "MUST",
    clause:
      "extensions §Provider-scoped cached status: unused providers report not_checked ... Missing-cache notices for unused providers are suppressed in both catalog methods.",
    title: "unused providers: not_checked, missing_cache, no notice; the enabled choice selectable",
    async run(ctx) {
      await withRefreshWorld(ctx, listing, async ({ child }) => {
        await refreshOk(child);
        const status = await child.request("model.catalog.status", {});
        const result = status.result as {
          configuration_reload: string;
          providers: { provider: string; catalog_status: string; authentication: string }[];
          choices: { id: string; selectable: boolean }[];
          notices: { code: string; provider?: string }[];
        };
        assert.equal(result.configuration_reload, "restart_child");
        assert.ok(result.providers.length <= 32);
        const byName = Object.fromEntries(result.providers.map((p) => [p.provider, p]));
        for (const unused of ["openai", "anthropic"]) {
          assert.equal(byName[unused]?.authentication, "not_checked", unused);
          assert.equal(byName[unused]?.catalog_status, "missing_cache", unused);
        }
        assert.equal(byName.demo?.catalog_status, "available");
        assert.deepEqual(
          result.choices.filter((c) => c.selectable).map((c) => c.id),
          ["demo/demo-1"],
        );
        const noticed = result.notices.map((n) => n.provider);
        assert.ok(!noticed.includes("openai") && !noticed.includes("anthropic"), "no notice");
      });
    },
  },
  {
    id: "models.refresh.failures_keep_cache",
    tier: "MUST",
    clause:
      "extensions §Deliberate provider refresh: Failed remote/auth/rate-limit/validation requests preserve previous cache bytes and selection.",
    title: "429, 401, a closed port and an empty list: their reasons, cache bytes unchanged",
    async run(ctx) {
      let answer = 200;
      const route: Route = (request, response) => {
        if (pathOf(request) !== "/v1/models") return sendJson(response, 200, {});
        if (answer === 204) return sendJson(response, 200, openAiModels([]));
        if (answer !== 200) return sendJson(response, answer, { error: "no" });
        sendJson(response, 200, openAiModels(["demo-1"]));
      };
      await withRefreshWorld(ctx, route, async ({ child }) => {
        await refreshOk(child);
        const before = readCache(ctx.box, "demo");
        for (const [status, reason] of [
          [429, "rate_limited"],
          [401, "authentication_rejected"],
          [204, "empty_catalog"],
        ] as const) {
          answer = status;
          const frame = await startRefresh(child).done;
          assert.equal(frame.result?.reason, reason, JSON.stringify(frame));
          assert.deepEqual(readCache(ctx.box, "demo"), before, `${reason}: cache unchanged`);
        }
      });
      const port = await closedPort();
      writeProviderHome(ctx.box, `http://127.0.0.1:${port}`);
      const child = await ctx.ready(["model.refresh", "model.catalog"], {
        env: { DEMO_KEY: "sk-x" },
      });
      const frame = await startRefresh(child).done;
      assert.equal(frame.result?.reason, "remote_unavailable", JSON.stringify(frame));
    },
  },
  {
    id: "models.capabilities.negotiated_only",
    tier: "MUST",
    clause:
      "extensions: Calling one without negotiation returns unsupported_capability ... Initialization advertises extensions only when negotiated.",
    title:
      "negotiating only session.list and model.catalog: no extensions, refresh and status refused",
    async run(ctx) {
      const child = await readyOrSkip(ctx, ["session.list", "model.catalog"]);
      const status = await child.request("model.catalog.status", {});
      assert.equal(status.error?.code, "unsupported_capability");
      const refresh = await child.request("model.refresh", { provider: "openai" });
      assert.equal(refresh.error?.code, "unsupported_capability");
      const catalog = await child.request("model.catalog", {});
      assert.ok(catalog.result, JSON.stringify(catalog.error));
      const init = child.frames[0]?.result as { extensions: object; limits: object } | undefined;
      assert.deepEqual(init?.extensions, {});
    },
  },
];
