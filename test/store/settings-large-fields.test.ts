import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import fc from "fast-check";
import { isBuilt } from "../../src/protocol/lazy.js";
import { HooksSettings } from "../../src/store/hooks-settings.js";
import { McpServersSettings } from "../../src/store/mcp-settings.js";
import {
  GlobalSettings,
  loadSettings,
  ProjectSettings,
  readSettingsFile,
} from "../../src/store/settings.js";
import { sandbox } from "../helpers/child.js";

/**
 * The settings files are checked without the schemas of `mcp_servers` and `hooks` when they
 * have no such key (src/store/settings.ts `settingsSchemaFor`): those two are most of building
 * the settings' schemas, which a child's start pays before its first session (issue 44). A
 * stand-in takes the absent key's place, so every verdict, issue and value must be the full
 * schema's: held here over generated files, valid and not. This file is its own process: the
 * first test sees the schemas as a start leaves them.
 */
const box = sandbox("mc-settings-large-");
after(() => box.cleanup());
const globalPath = join(box.home, "config.json");
const projectPath = join(box.workspace, ".mc", "config.json");
mkdirSync(join(box.workspace, ".mc"), { recursive: true });

test("files without mcp_servers or hooks build neither schema; one with them builds it", () => {
  writeFileSync(globalPath, JSON.stringify({ model: "demo/demo-1", providers: {} }));
  writeFileSync(projectPath, JSON.stringify({ effort: "low" }));
  const loaded = loadSettings(box.home, box.workspace);
  assert.deepEqual(loaded.files, { global: { state: "valid" }, project: { state: "valid" } });
  assert.equal(isBuilt(McpServersSettings), false);
  assert.equal(isBuilt(HooksSettings), false);
  writeFileSync(projectPath, JSON.stringify({ hooks: {} }));
  assert.equal(loadSettings(box.home, box.workspace).files.project.state, "valid");
  assert.equal(isBuilt(HooksSettings), true);
  assert.equal(isBuilt(McpServersSettings), false);
});

/** A value for a settings key: a valid one of its kind, or any JSON at all. */
const anyJson = fc.jsonValue({ maxDepth: 3 });
const hook = fc.record({ type: fc.constant("command"), command: fc.string({ maxLength: 8 }) });
const hooks = fc.oneof(
  fc.constant({}),
  fc.record({ PreToolUse: fc.array(fc.record({ matcher: fc.string(), hooks: fc.array(hook) })) }),
  anyJson,
);
const mcpServers = fc.oneof(
  fc.constant({}),
  fc.record({
    files: fc.record({ command: fc.constantFrom("node", ""), args: fc.array(fc.string()) }),
  }),
  anyJson,
);
const settingsFile = fc.record(
  {
    model: fc.oneof(fc.constantFrom("demo/demo-1", "bad id"), anyJson),
    effort: fc.oneof(fc.constant("low"), anyJson),
    providers: fc.oneof(
      fc.constant({ demo: { type: "openai-compatible", base_url: "http://127.0.0.1:1/v1" } }),
      fc.constant({ openai: { type: "anthropic" } }),
      anyJson,
    ),
    enabled_models: fc.oneof(fc.constant(["demo/demo-1", "nobody/x"]), anyJson),
    budget_usd: fc.oneof(fc.constant(5), fc.constant(-1), anyJson),
    sandbox: fc.oneof(fc.constant({ network: true }), anyJson),
    hooks,
    mcp_servers: mcpServers,
    unknown_key: anyJson,
  },
  { requiredKeys: [] },
);

test("every file reads exactly as with the full schemas: verdict, first issue and value", () => {
  fc.assert(
    fc.property(fc.oneof(settingsFile, anyJson), fc.oneof(settingsFile, anyJson), (g, p) => {
      writeFileSync(globalPath, JSON.stringify(g));
      writeFileSync(projectPath, JSON.stringify(p));
      const loaded = loadSettings(box.home, box.workspace);
      const global = readSettingsFile(globalPath, GlobalSettings);
      const project = readSettingsFile(projectPath, ProjectSettings);
      const state = <T>(read: { state: string; data?: T }) =>
        read.state === "valid" ? { state: "valid" } : read;
      assert.deepEqual(loaded.files.global, state(global));
      assert.deepEqual(loaded.files.project, state(project));
      assert.deepEqual(loaded.global, global.state === "valid" ? global.data : {});
      assert.deepEqual(loaded.project, project.state === "valid" ? project.data : {});
    }),
    { numRuns: 300 },
  );
});
