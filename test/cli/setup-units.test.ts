import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  SettingsEditRefused,
  setupEditedText,
  writeSetupSettings,
} from "../../src/offline/settings-edit.js";

/** setup's one write (src/offline/settings-edit.ts), on a real file in a temp folder. */
describe("setup's settings edit", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "mc-setup-edit-"));
    path = join(dir, "config.json");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const change = {
    provider: {
      id: "local",
      entry: { type: "openai-compatible" as const, base_url: "http://127.0.0.1:1/v1" },
    },
    model: "local/m",
  };

  it("a file changed since setup read it is refused, and left as the other edit made it", async () => {
    const before = '{"effort": "low"}\n';
    writeFileSync(path, '{"effort": "high"}\n');
    await assert.rejects(
      writeSetupSettings(path, before, change),
      (error: unknown) => error instanceof SettingsEditRefused && error.reason === "changed",
    );
    assert.equal(readFileSync(path, "utf8"), '{"effort": "high"}\n');
  });

  it("an absent file is created with the provider, the model enabled and chosen", async () => {
    assert.equal(await writeSetupSettings(path, null, change), "written");
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), {
      providers: { local: change.provider.entry },
      enabled_models: ["local/m"],
      model: "local/m",
    });
    // Again: nothing to change, nothing written.
    const now = readFileSync(path, "utf8");
    assert.equal(await writeSetupSettings(path, now, change), "unchanged");
  });

  it("an enabled list is appended to, and an existing provider entry that is the same kept", () => {
    const before = JSON.stringify({
      providers: { local: change.provider.entry },
      enabled_models: ["openai/gpt-5"],
      model: "openai/gpt-5",
    });
    const after = JSON.parse(setupEditedText(before, { ...change, provider: change.provider }));
    assert.deepEqual(after.enabled_models, ["openai/gpt-5", "local/m"]);
    assert.equal(after.model, "local/m");
    assert.deepEqual(after.providers, { local: change.provider.entry });
  });
});
