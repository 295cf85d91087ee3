import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import type { Frame } from "../frame.js";
import type { TestChild } from "../harness.js";
import { readyOrSkip } from "../skip.js";
import { KIT_KEY, turnChildOptions, writeTurnHome } from "../turn-world.js";

/**
 * `errors.recovery` (docs/extensions.md): each first-run failure names its own next step on
 * `model_unavailable`, `authentication_unavailable` and the catalog notices when negotiated,
 * and nothing changes without it. Every home here is refused before any provider is called, so
 * the provider's address is a port nothing listens on.
 */
const NOWHERE = "http://127.0.0.1:9/v1";
const BASE = ["session.create", "turn", "model.catalog", "model.catalog.status", "model.select"];
const GUIDED = [...BASE, "errors.recovery"];

type Home = "none" | "no_key" | "no_cache" | "nothing_enabled" | "invalid_settings";

/** Writes one first-run state into the box; returns the child's environment. */
function writeHome(ctx: CaseContext, home: Home): Record<string, string> {
  const withKey = { MC_KIT_KEY: KIT_KEY };
  // Only a key of a built-in provider is exported: it is found, but nothing is set up.
  if (home === "none") return { OPENAI_API_KEY: "sk-conformance-only-a-key" };
  writeTurnHome(ctx.box, NOWHERE);
  const config = join(ctx.box.home, "config.json");
  if (home === "no_key") return {};
  if (home === "no_cache") rmSync(join(ctx.box.home, "cache", "models", "kit.json"));
  if (home === "nothing_enabled")
    writeFileSync(
      config,
      JSON.stringify({
        providers: {
          kit: { type: "openai-compatible", base_url: NOWHERE, api_key_env: "MC_KIT_KEY" },
        },
      }),
    );
  if (home === "invalid_settings") {
    writeFileSync(config, '{"providers": {"kit": ');
    mkdirSync(join(ctx.box.workspace, ".mc"), { recursive: true });
    writeFileSync(join(ctx.box.workspace, ".mc", "config.json"), '{"model": 7}');
  }
  return withKey;
}

/** The next home starts from nothing: MC_HOME emptied, the project settings gone. */
function emptyBox(ctx: CaseContext): void {
  for (const entry of readdirSync(ctx.box.home))
    rmSync(join(ctx.box.home, entry), { recursive: true, force: true });
  rmSync(join(ctx.box.workspace, ".mc"), { recursive: true, force: true });
}

async function childFor(ctx: CaseContext, home: Home, guided: boolean): Promise<TestChild> {
  const env = writeHome(ctx, home);
  const options = turnChildOptions();
  return readyOrSkip(ctx, guided ? GUIDED : BASE, { ...options, env });
}

async function refusedTurn(child: TestChild): Promise<NonNullable<Frame["error"]>> {
  await child.call("session.create", {});
  const frame = await child.request("turn.start", { input: "hello" });
  assert.ok(frame.error, `turn.start should be refused: ${JSON.stringify(frame.result)}`);
  return frame.error;
}

/** Each home: the turn's refusal under errors.recovery, and the notices of model.catalog. */
const EXPECTED: Record<Home, { error: unknown; notices: unknown[] }> = {
  none: {
    error: { code: "model_unavailable", recovery: "run_setup", provider: null },
    notices: [],
  },
  no_key: {
    error: {
      code: "authentication_unavailable",
      recovery: "configure_authentication",
      provider: "kit",
    },
    notices: [],
  },
  no_cache: {
    error: { code: "model_unavailable", recovery: "refresh_catalog", provider: "kit" },
    notices: [{ code: "catalog_missing", provider: "kit", recovery: "refresh_catalog" }],
  },
  nothing_enabled: {
    error: { code: "model_unavailable", recovery: "enable_models_and_restart", provider: "kit" },
    notices: [],
  },
  invalid_settings: {
    error: { code: "model_unavailable", recovery: "run_setup", provider: null },
    notices: [
      { code: "configuration_invalid", recovery: "run_setup", settings: "global" },
      { code: "configuration_invalid", recovery: "run_setup", settings: "project" },
    ],
  },
};

const HOMES = Object.keys(EXPECTED) as Home[];
const SEED_RECOVERIES = [
  "none",
  "configure_authentication",
  "refresh_catalog",
  "enable_models_and_restart",
];

export const ERROR_RECOVERY_CASES: ConformanceCase[] = [
  {
    id: "errors.recovery.first_run",
    tier: "MUST",
    clause:
      "extensions.md, errors.recovery: negotiated, model_unavailable and authentication_unavailable carry {recovery, provider} and the catalog notices their recovery (and an invalid settings file which one, global or project); each first-run state (no settings, no key, no cache, nothing enabled, invalid settings) names its own step.",
    title: "each first-run failure names its own next step on the error and the notices",
    async run(ctx) {
      for (const home of HOMES) {
        const child = await childFor(ctx, home, true);
        const { message, ...error } = await refusedTurn(child);
        assert.deepEqual(error, EXPECTED[home].error, home);
        assert.ok(typeof message === "string" && message.length > 0, home);
        const catalog = await child.call("model.catalog", {});
        assert.deepEqual(catalog.notices, EXPECTED[home].notices, `${home}: notices`);
        const status = await child.call("model.catalog.status", {});
        assert.deepEqual(status.notices, EXPECTED[home].notices, `${home}: status notices`);
        for (const p of status.providers)
          assert.ok(SEED_RECOVERIES.includes(p.recovery), `${home}: ${p.provider} ${p.recovery}`);
        await child.close();
        emptyBox(ctx);
      }
    },
  },
  {
    id: "errors.recovery.not_negotiated",
    tier: "MUST",
    clause:
      "base §2: Failure: {id, error: {code, message}}; base §7: notices {code, provider} and {code: configuration_invalid}. extensions.md: without errors.recovery nothing of it appears.",
    title: "without the capability, errors stay {code, message} and notices their base shape",
    async run(ctx) {
      for (const home of HOMES) {
        const child = await childFor(ctx, home, false);
        const error = await refusedTurn(child);
        assert.deepEqual(Object.keys(error).sort(), ["code", "message"], home);
        assert.equal(error.code, (EXPECTED[home].error as { code: string }).code, home);
        const catalog = await child.call("model.catalog", {});
        const base =
          home === "invalid_settings"
            ? [{ code: "configuration_invalid" }]
            : EXPECTED[home].notices.map((n) => {
                const { recovery: _, ...rest } = n as Record<string, unknown>;
                return rest;
              });
        assert.deepEqual(catalog.notices, base, `${home}: notices`);
        await child.close();
        emptyBox(ctx);
      }
    },
  },
  {
    id: "errors.recovery.select",
    tier: "MUST",
    clause:
      "extensions.md, errors.recovery: model.select of a model that is no choice is model_unavailable with the step that would make it one: a cached model not enabled needs enable_models_and_restart, a provider not configured run_setup.",
    title: "model.select's model_unavailable names the step for that model",
    async run(ctx) {
      const child = await childFor(ctx, "nothing_enabled", true);
      const catalog = await child.call("model.catalog", {});
      const select = async (model: string) => {
        const frame = await child.request("model.select", {
          model,
          effort: null,
          catalog_revision: catalog.revision,
        });
        assert.ok(frame.error, JSON.stringify(frame.result));
        const { message: _, ...rest } = frame.error;
        return rest;
      };
      assert.deepEqual(await select("kit/kit-1"), {
        code: "model_unavailable",
        recovery: "enable_models_and_restart",
        provider: "kit",
      });
      assert.deepEqual(await select("elsewhere/some-model"), {
        code: "model_unavailable",
        recovery: "run_setup",
        provider: null,
      });
    },
  },
];
