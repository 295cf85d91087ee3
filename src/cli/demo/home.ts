import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The demo's throwaway MC_HOME, written in the documented store format (docs/store.md): sample
 * histories for the current folder and a few that discovery must leave out or flag, and
 * settings naming a local OpenAI-compatible provider. The demo writes this fixture; as a
 * frontend it then reads everything only through the protocol.
 */
export interface DemoHome {
  home: string;
  /** Session IDs by role, for the walkthrough's commentary. */
  ids: { first: string; foreign: string };
}

const T0 = Date.parse("2026-11-29T09:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

export function writeDemoHome(root: string, workspace: string, providerUrl: string): DemoHome {
  const home = join(root, "home");
  const sessions = join(home, "sessions");
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const history = (id: string, records: object[]) =>
    writeFileSync(
      join(sessions, `${id}.jsonl`),
      records.map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
  const cwd = workspace;
  history("fix-flaky-test", [
    { type: "session_meta", ts: at(0), cwd, id: "fix-flaky-test" },
    {
      type: "user_message",
      ts: at(1),
      cwd,
      text: "The date test fails on the first of the month.",
    },
    { type: "title", ts: at(2), cwd, title: "Fix the flaky date test" },
    {
      type: "assistant_message",
      ts: at(3),
      cwd,
      text: "It compares local and UTC midnight; use UTC.",
      model: "demo/demo-1",
    },
    { type: "model", ts: at(4), cwd, model: "demo/demo-1", effort: "high" },
  ]);
  history("add-dark-mode", [
    { type: "session_meta", ts: at(30), cwd, id: "add-dark-mode" },
    {
      type: "user_message",
      ts: at(31),
      cwd,
      text: "Add a dark mode toggle to the settings page\nand remember it.",
    },
    { type: "mode", ts: at(32), cwd, mode: "plan" },
  ]);
  history("refactor-parser", [
    { type: "session_meta", ts: at(60), cwd, id: "refactor-parser" },
    { type: "user_message", ts: at(61), cwd, text: "Split the parser into lexer and grammar." },
  ]);
  // A writer holds this one: listed with the conservative busy hint.
  writeFileSync(
    join(sessions, "refactor-parser.lock"),
    JSON.stringify({ pid: 1, renewed_at: at(62) }),
  );
  // No recorded folder: a legacy row, flagged unverified.
  history("legacy-notes", [
    { type: "user_message", ts: at(90), text: "Notes from before folders were recorded." },
  ]);
  // Another folder's session: excluded from this folder's listing, refused by exact open.
  history("other-project", [
    { type: "user_message", ts: at(120), cwd: "/elsewhere/other-project", text: "Elsewhere." },
  ]);
  // A subagent history: never listed.
  history("fix-flaky-test.subagent-1", [
    { type: "user_message", ts: at(5), cwd, text: "Subagent work." },
  ]);
  // Not JSON: left out and counted as invalid.
  writeFileSync(join(sessions, "broken-session.jsonl"), "this is not json\n");
  writeSettings(home, providerUrl, ["demo/demo-1"]);
  return { home, ids: { first: "fix-flaky-test", foreign: "other-project" } };
}

/** Settings (MC_HOME/config.json): the local provider, its key variable, the enabled models. */
export function writeSettings(home: string, providerUrl: string, enabled: string[]): void {
  const settings = {
    providers: {
      demo: { type: "openai-compatible", base_url: `${providerUrl}/v1`, api_key_env: "DEMO_KEY" },
    },
    enabled_models: enabled,
    models_dev_url: `${providerUrl}/models-dev/api.json`,
  };
  writeFileSync(join(home, "config.json"), `${JSON.stringify(settings, null, 2)}\n`);
}
