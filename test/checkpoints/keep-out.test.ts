/**
 * keepOutOf: which of mc's stores a workspace holds (as given and through symlinks), and a
 * workspace that is a store or lies inside one.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { keepOutOf, keptOut } from "../../src/agent/checkpoints/keep-out.js";

test("stores inside the workspace are kept out, as given and resolved; others are not", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mc-keep-out-")));
  try {
    const ws = join(root, "ws");
    mkdirSync(join(ws, ".mc"), { recursive: true });
    mkdirSync(join(root, "real-cache"));
    // A store named through a link inside the workspace that leads inside it too.
    symlinkSync(join(ws, "deep", "cache"), join(ws, "cache-link"));
    mkdirSync(join(ws, "deep", "cache"), { recursive: true });
    const found = keepOutOf(ws, [
      join(ws, ".mc"),
      join(ws, "cache-link", "mc-agent"),
      join(root, "real-cache"),
      join(ws, "not-yet", "auth.json"),
    ]);
    assert.deepEqual(found, {
      paths: [".mc", "cache-link/mc-agent", "deep/cache/mc-agent", "not-yet/auth.json"],
      workspaceInStore: false,
    });
    assert.ok(keptOut(".mc", found.paths));
    assert.ok(keptOut(".mc/sessions/a.jsonl", found.paths));
    assert.ok(!keptOut(".mcx", found.paths));
    assert.ok(!keptOut("deep/cache/other", found.paths));
    assert.equal(keepOutOf(ws, [ws]).workspaceInStore, true);
    assert.equal(keepOutOf(ws, [root]).workspaceInStore, true);
    assert.deepEqual(keepOutOf(ws, [join(root, "real-cache")]), {
      paths: [],
      workspaceInStore: false,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
