import { choice, providerStatus } from "./catalog-fixture.js";
import { entry } from "./fakes.js";

/** Canned data for the CLI's golden tests against the scripted child. */
export const CLI_FIXTURE = {
  "sessions.json": {
    sessions: [
      entry("fix-flaky-test", "Fix the flaky date test"),
      { ...entry("refactor-parser", "Split the parser into lexer and grammar"), busy: true },
      { ...entry("legacy-notes", null), cwd: "unverified", created_at: null, updated_at: null },
    ],
    notices: [
      { code: "cwd_unverified", count: 1 },
      { code: "sessions_omitted_invalid", count: 2 },
    ],
  },
  "history-fix-flaky-test.json": [
    { type: "session_meta", ts: "2026-11-29T09:00:00.000Z", id: "fix-flaky-test" },
    {
      type: "user_message",
      ts: "2026-11-29T09:01:00.000Z",
      text: "The date test fails\non the first of the month.",
    },
    { type: "title", ts: "2026-11-29T09:02:00.000Z", title: "Fix the flaky date test" },
    {
      type: "assistant_message",
      ts: "2026-11-29T09:03:00.000Z",
      text: "Use UTC midnight.",
      model: "demo/demo-1",
    },
    { type: "model", ts: "2026-11-29T09:04:00.000Z", model: "demo/demo-1", effort: "high" },
    { type: "tool_call", ts: "2026-11-29T09:05:00.000Z" },
  ],
  "catalog.json": {
    choices: [choice("demo", "demo-1")],
    notices: [{ code: "catalog_missing", provider: "openai" }],
    providers: [
      providerStatus("demo", "available", "ready", "none"),
      providerStatus("openai", "missing_cache", "ready", "refresh_catalog"),
      providerStatus(
        "work",
        "incompatible_fingerprint",
        "authentication_unavailable",
        "configure_authentication",
      ),
      providerStatus(
        "anthropic",
        "missing_cache",
        "not_checked",
        "enable_models_and_restart",
        false,
      ),
    ],
  },
  "refresh.json": {
    openai: {
      outcome: "refreshed",
      catalog_after: {
        choices: [choice("demo", "demo-1"), choice("openai", "gpt-x", ["low", "high"])],
        providers: [
          providerStatus("demo", "available", "ready", "none"),
          providerStatus("openai", "available", "ready", "none"),
        ],
      },
    },
    work: { outcome: "failed", reason: "authentication_unavailable" },
    slow: { outcome: "refreshed", delay_ms: 30_000 },
  },
};
