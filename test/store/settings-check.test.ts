import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { SettingsFileCheck } from "../../src/protocol/schemas/settings.js";
import { GlobalSettings, readSettingsFile } from "../../src/store/settings.js";
import { SETTINGS_FAULT_REASONS } from "../../src/store/settings-fault.js";
import { locateFault } from "../../src/store/settings-locate.js";
import { type Sandbox, sandbox, startReady } from "../helpers/child.js";

/** Where a fault is: the locator on its own, then `settings.check` from a real child. */
describe("settings faults: rule, line and column", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox("mc-settings-check-");
  });
  afterEach(() => box.cleanup());
  const locate = (text: string) => {
    const path = join(box.home, "config.json");
    writeFileSync(path, text);
    const read = readSettingsFile(path, GlobalSettings);
    assert.equal(read.state, "invalid", text);
    return read.state === "invalid" ? locateFault(read.fault) : null;
  };

  it("syntax: the comma of a trailing comma, a comment, a missing colon", () => {
    assert.deepEqual(locate('{"model": "a/b",\n}'), {
      reason: "syntax",
      rule: "trailing_comma",
      line: 1,
      column: 16,
    });
    assert.deepEqual(locate('{"enabled_models": ["a/b",]}'), {
      reason: "syntax",
      rule: "trailing_comma",
      line: 1,
      column: 26,
    });
    assert.deepEqual(locate('{\n  // mine\n  "model": "a/b"\n}'), {
      reason: "syntax",
      rule: "invalid_comment_token",
      line: 2,
      column: 3,
    });
    assert.deepEqual(locate('{"model" "a/b"}'), {
      reason: "syntax",
      rule: "colon_expected",
      line: 1,
      column: 10,
    });
    assert.deepEqual(locate("  \n"), { reason: "syntax", rule: "empty_file", line: 1, column: 1 });
  });

  it("schema: the key of an unknown key (nested too), the value of a wrong one, cross-field rules", () => {
    assert.deepEqual(locate('{\n  "modle": "a/b"\n}'), {
      reason: "schema",
      rule: "unknown_key",
      line: 2,
      column: 3,
    });
    assert.deepEqual(
      locate('{"providers": {"x": {"type": "openai-compatible", "base_url": "u", "key": 1}}}'),
      { reason: "schema", rule: "unknown_key", line: 1, column: 68 },
    );
    assert.deepEqual(locate('{"effort": 3}'), {
      reason: "schema",
      rule: "wrong_type",
      line: 1,
      column: 12,
    });
    assert.deepEqual(locate('{"enabled_models": ["a/b", "openai/x", "nobody/y"]}'), {
      reason: "schema",
      rule: "unknown_provider",
      line: 1,
      column: 21,
    });
    assert.deepEqual(locate('{"providers": {"openai": {"type": "anthropic"}}}'), {
      reason: "schema",
      rule: "built_in_type",
      line: 1,
      column: 35,
    });
    // Columns count UTF-16 code units, as editors do.
    assert.deepEqual(locate('{"model": "a/b", "名前": 1}'), {
      reason: "schema",
      rule: "unknown_key",
      line: 1,
      column: 18,
    });
  });

  it("settings.check from a real child: both files, MC_HOME's state, no content", async () => {
    writeFileSync(join(box.home, "config.json"), '{"secret-looking-key": "sk-canary"}');
    mkdirSync(join(box.workspace, ".mc"));
    writeFileSync(join(box.workspace, ".mc", "config.json"), '{"model": "a/b"}');
    const child = await startReady(box, ["settings.check"]);
    try {
      const answer = await child.request("settings.check", {});
      assert.deepEqual(answer.result, {
        home: "folder",
        files: [
          {
            file: "global",
            state: "invalid",
            reason: "schema",
            rule: "unknown_key",
            line: 1,
            column: 2,
          },
          { file: "project", state: "valid", reason: null, rule: null, line: null, column: null },
        ],
        configuration_reload: "restart_child",
      });
      assert.ok(
        !JSON.stringify(answer).includes("canary") && !JSON.stringify(answer).includes("secret"),
      );
    } finally {
      await child.close();
    }
  });
});

/** The store restates the protocol's fault reasons (it imports nothing outside itself): keep them one list. */
describe("settings fault reasons", () => {
  it("the store's list is the protocol's, in the same order", () => {
    // The protocol's list, as settings.check's `reason` takes it.
    const reasons = SettingsFileCheck().shape.reason.unwrap().options;
    assert.deepEqual([...SETTINGS_FAULT_REASONS], [...reasons]);
  });
});

/** `subagent_model` (docs/turns.md, "Subagents") is checked as `model` is, in both files. */
describe("settings: subagent_model", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox("mc-settings-sub-");
  });
  afterEach(() => box.cleanup());

  it("a wrong type or an unsafe name is located; a model ID is valid", async () => {
    writeFileSync(join(box.home, "config.json"), '{\n  "model": "a/b",\n  "subagent_model": 7\n}');
    mkdirSync(join(box.workspace, ".mc"));
    writeFileSync(join(box.workspace, ".mc", "config.json"), '{"subagent_model": "a b"}');
    const child = await startReady(box, ["settings.check"]);
    try {
      const answer = await child.request("settings.check", {});
      const files = (answer.result as { files: unknown[] }).files;
      assert.deepEqual(files, [
        {
          file: "global",
          state: "invalid",
          reason: "schema",
          rule: "wrong_type",
          line: 3,
          column: 21,
        },
        {
          file: "project",
          state: "invalid",
          reason: "schema",
          rule: "invalid_value",
          line: 1,
          column: 20,
        },
      ]);
    } finally {
      await child.close();
    }
    writeFileSync(join(box.home, "config.json"), '{"subagent_model": "demo/demo-2"}');
    assert.equal(readSettingsFile(join(box.home, "config.json"), GlobalSettings).state, "valid");
  });
});
