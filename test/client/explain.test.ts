import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  adviceFor,
  CLIENT_ERROR_CODES,
  explain,
  explainNotice,
  explainRefresh,
  nextStepForModel,
} from "../../src/client/index.js";
import { ERROR_CODES } from "../../src/protocol/codes.js";
import { NEXT_STEPS } from "../../src/protocol/recovery.js";
import {
  AUTHENTICATION_STATES,
  CATALOG_RECOVERIES,
  CATALOG_STATUSES,
  REFRESH_REASONS,
} from "../../src/protocol/schemas/models.js";

describe("explain", () => {
  it("has a sentence and an action for every status, authentication and recovery value", () => {
    for (const catalog_status of CATALOG_STATUSES)
      for (const authentication of AUTHENTICATION_STATES)
        for (const recovery of CATALOG_RECOVERIES) {
          const e = explain({
            provider: "p1",
            catalog_status,
            authentication,
            relevant: true,
            recovery,
          });
          assert.match(e.sentence, /^p1 \(in use\): [a-z].+\.$/);
          assert.ok(!/undefined/.test(e.sentence + e.action));
          assert.equal(e.recovery, recovery);
        }
    const actions = new Set(
      CATALOG_RECOVERIES.map(
        (recovery) =>
          explain({
            provider: "p",
            catalog_status: "available",
            authentication: "ready",
            relevant: false,
            recovery,
          }).action,
      ),
    );
    assert.equal(actions.size, CATALOG_RECOVERIES.length, "each recovery has its own action");
  });

  it("explains every refresh reason and success", () => {
    const base = {
      provider: "demo",
      catalog_revision: null,
      catalog_error: null,
      recovery: "reload_catalog",
      configuration_reload: "restart_child",
      selection_unchanged: true,
    } as const;
    const sentences = REFRESH_REASONS.map((reason) =>
      explainRefresh({ ...base, outcome: "failed", reason }),
    );
    assert.equal(new Set(sentences).size, REFRESH_REASONS.length);
    for (const s of sentences) assert.match(s, /^demo: refresh failed: .+\.$/);
    assert.equal(
      explainRefresh({ ...base, outcome: "refreshed", reason: null }),
      "demo: catalog refreshed.",
    );
  });

  it("has advice for every wire and client error code", () => {
    for (const code of [...ERROR_CODES, ...CLIENT_ERROR_CODES])
      assert.ok(adviceFor(code).length > 5, code);
  });

  it("advice for an error with a next step names the command to run, and the provider", () => {
    const advice = (recovery: (typeof NEXT_STEPS)[number], provider: string | null) =>
      adviceFor("model_unavailable", { recovery, provider });
    assert.equal(
      advice("run_setup", null),
      'Run "mc-agent setup": it finds your API keys, logins and local model servers, fetches a provider\'s models and sets your default model.',
    );
    assert.equal(
      advice("refresh_catalog", "demo"),
      'Fetch demo\'s models: run "mc-agent refresh demo".',
    );
    assert.match(
      advice("enable_models_and_restart", "demo"),
      /run "mc-agent models enable demo\/<model> --default" \("mc-agent models" lists them\), then restart the backend\.$/,
    );
    assert.match(
      adviceFor("authentication_unavailable", {
        recovery: "configure_authentication",
        provider: "demo",
      }),
      /^Give demo credentials: export its API key variable or log in with its own CLI \("mc-agent setup" shows what it finds\)/,
    );
    const all = NEXT_STEPS.map((step) => advice(step, "p"));
    assert.equal(new Set(all).size, NEXT_STEPS.length, "each step has its own words");
    // Without a step (not negotiated), the code's own advice, unchanged.
    assert.equal(
      adviceFor("model_unavailable"),
      "Pick one of the selectable choices listed by the catalog.",
    );
  });

  it("explains each notice with its step, and the base notices without one", () => {
    assert.equal(
      explainNotice({
        code: "catalog_missing",
        provider: "demo",
        recovery: "configure_authentication",
      }),
      'No catalog of demo\'s models has been fetched yet. Give demo credentials: export its API key variable or log in with its own CLI ("mc-agent setup" shows what it finds), then restart the backend.',
    );
    assert.equal(
      explainNotice({ code: "catalog_invalid", provider: "demo" }),
      "demo's cached catalog is invalid. Fetch demo's models: run \"mc-agent refresh demo\".",
    );
    assert.match(
      explainNotice({ code: "configuration_invalid", recovery: "run_setup", settings: "project" }),
      /^The project settings file is invalid and is ignored \(built-in defaults are in use\): fix it \("mc-agent doctor" shows where it is wrong\) or run "mc-agent setup"/,
    );
    assert.match(explainNotice({ code: "configuration_invalid" }), /^A settings file is invalid/);
  });

  it("decides a missing model's step as the child does, first rule first", () => {
    const status = (
      provider: string,
      catalog_status: string,
      relevant: boolean,
      recovery:
        | "none"
        | "configure_authentication"
        | "refresh_catalog"
        | "enable_models_and_restart",
    ) => ({ provider, catalog_status, relevant, recovery });
    const none = { choices: [], providers: [status("openai", "missing_cache", false, "none")] };
    assert.deepEqual(nextStepForModel(none, null), { recovery: "run_setup", provider: null });
    assert.deepEqual(nextStepForModel(none, "elsewhere/x"), {
      recovery: "run_setup",
      provider: null,
    });
    assert.deepEqual(nextStepForModel(none, "openai/gpt"), {
      recovery: "refresh_catalog",
      provider: "openai",
    });
    const keyless = {
      choices: [],
      providers: [status("demo", "available", true, "configure_authentication")],
    };
    assert.deepEqual(nextStepForModel(keyless, null), {
      recovery: "configure_authentication",
      provider: "demo",
    });
    const cachedOnly = {
      choices: [],
      providers: [status("demo", "available", false, "enable_models_and_restart")],
    };
    assert.deepEqual(nextStepForModel(cachedOnly, null), {
      recovery: "enable_models_and_restart",
      provider: "demo",
    });
    const chosen = {
      choices: [{ id: "demo/demo-1", provider: "demo" }],
      providers: [status("demo", "available", true, "none")],
    };
    assert.deepEqual(nextStepForModel(chosen, null), {
      recovery: "enable_models_and_restart",
      provider: "demo",
    });
  });
});
