import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { GlobalSettings, ProjectSettings, readSettingsFile } from "../../src/store/settings.js";
import { locateFault } from "../../src/store/settings-locate.js";
import { type Sandbox, sandbox } from "../helpers/child.js";

/** `hooks` in both settings files: Claude Code's format, strict, faults located (hooks.md). */
describe("hooks settings", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox("mc-hooks-settings-");
  });
  afterEach(() => box.cleanup());
  const read = (text: string, project = false) => {
    const path = project
      ? join(box.workspace, ".mc", "config.json")
      : join(box.home, "config.json");
    if (project) mkdirSync(join(box.workspace, ".mc"), { recursive: true });
    writeFileSync(path, text);
    return readSettingsFile(path, project ? ProjectSettings : GlobalSettings);
  };
  const locate = (text: string, project = false) => {
    const r = read(text, project);
    assert.equal(r.state, "invalid", text);
    return r.state === "invalid" ? locateFault(r.fault) : null;
  };
  const hook = (extra: object = {}) => ({ type: "command", command: "x", ...extra });

  it("a Claude Code configuration is valid in both files", () => {
    const text = JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [hook({ timeout: 600 })] }],
        PostToolUse: [{ matcher: "Edit|Write", hooks: [hook()] }],
        Stop: [{ hooks: [hook({ timeout: 1 })] }],
      },
    });
    assert.equal(read(text).state, "valid");
    assert.equal(read(text, true).state, "valid");
  });

  it("Claude Code's events mc-agent has no moment for are valid and checked like the rest", () => {
    const text = JSON.stringify({
      hooks: {
        SubagentStop: [{ hooks: [hook()] }],
        PermissionRequest: [{ matcher: "Bash", hooks: [hook({ timeout: 5 })] }],
        PreToolUse: [{ matcher: "Bash", hooks: [hook()] }],
      },
    });
    assert.equal(read(text).state, "valid");
    assert.equal(read(text, true).state, "valid");
    // Their groups keep the same rules: a bad matcher or timeout still invalidates the file.
    assert.deepEqual(locate('{"hooks": {"SubagentStop": [\n {"matcher": "(", "hooks": []}]}}'), {
      reason: "schema",
      rule: "invalid_matcher",
      line: 2,
      column: 14,
    });
    const tooLong = { hooks: { PostCompact: [{ hooks: [hook({ timeout: 601 })] }] } };
    assert.equal(locate(JSON.stringify(tooLong))?.rule, "invalid_value");
  });

  it("an unknown event, field, type, a timeout past its bounds, a bad matcher: rule, line, column", () => {
    // A name Claude Code does not have either (a typo) is the file's error.
    assert.deepEqual(locate('{"hooks": {\n  "SubagentStopp": []}}'), {
      reason: "schema",
      rule: "unknown_key",
      line: 2,
      column: 3,
    });
    assert.deepEqual(
      locate('{"hooks": {"Stop": [{"hooks": [\n  {"type": "prompt", "command": "x"}]}]}}', true),
      { reason: "schema", rule: "invalid_value", line: 2, column: 12 },
    );
    // At the bound (600) valid above; one past it is not, nor 0.
    for (const timeout of [601, 0])
      assert.equal(
        locate(JSON.stringify({ hooks: { Stop: [{ hooks: [hook({ timeout })] }] } }))?.rule,
        "invalid_value",
      );
    assert.deepEqual(locate('{"hooks": {"Stop": [{"hooks": [], "when": 1}]}}'), {
      reason: "schema",
      rule: "unknown_key",
      line: 1,
      column: 35,
    });
    assert.deepEqual(locate('{"hooks": {"PreToolUse": [\n {"matcher": "Bash(", "hooks": []}]}}'), {
      reason: "schema",
      rule: "invalid_matcher",
      line: 2,
      column: 14,
    });
  });
});
