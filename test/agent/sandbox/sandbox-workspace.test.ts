/**
 * Workspaces no sandbox is offered for (docs/tools.md, "Workspaces the sandbox refuses"): `/`,
 * the home folder or a folder holding it, MC_HOME or a credential folder, where they exist or
 * would; the probe refuses them before running anything, with a reason that names no path.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type PolicyInputs, sandboxPolicy } from "../../../src/agent/sandbox/policy.js";
import { probeSandbox, unavailableMessage } from "../../../src/agent/sandbox/probe.js";
import { cleanTrees, tree } from "./sandbox-tree.js";

afterEach(cleanTrees);

describe("a workspace too wide for the sandbox", () => {
  test("`/`, the home folder, or one holding MC_HOME or a credential folder (existing or not)", () => {
    const t = tree();
    const base = { home: t.home, env: { HOME: t.user }, network: false };
    const wide = (inputs: Partial<PolicyInputs> & { workspace: string }) =>
      sandboxPolicy({ ...base, ...inputs }).tooWide;
    assert.equal(wide({ workspace: t.workspace }), false, "a project beside them");
    assert.equal(wide({ workspace: join(t.user, "project"), env: { HOME: t.user } }), false);
    assert.equal(wide({ workspace: "/" }), true);
    assert.equal(wide({ workspace: t.user }), true, "the home folder");
    assert.equal(wide({ workspace: t.root }), true, "holds the home folder and MC_HOME");
    assert.equal(wide({ workspace: t.home }), true, "MC_HOME itself");
    const elsewhere = { HOME: "/nonexistent-mc-test-home" };
    assert.equal(wide({ workspace: t.root, env: elsewhere }), true, "holds MC_HOME");
    // CODEX_HOME inside the workspace, not made yet: a command could make it and fill it.
    const codex = { HOME: t.user, CODEX_HOME: join(t.workspace, "tools", "codex") };
    assert.equal(wide({ workspace: t.workspace, env: codex }), true, "would hold Codex's folder");
    const claude = { HOME: t.user, CLAUDE_CONFIG_DIR: join(t.workspace, ".claude") };
    assert.equal(wide({ workspace: t.workspace, env: claude }), true, "holds Claude's folder");
    // Through a link: MC_HOME named by a link that leads into the workspace.
    mkdirSync(join(t.workspace, "store"));
    symlinkSync(join(t.workspace, "store"), join(t.root, "store-link"));
    assert.equal(wide({ workspace: t.workspace, home: join(t.root, "store-link") }), true);
    // A workspace inside a credential folder is not: the folder's files stay outside it.
    assert.equal(wide({ workspace: join(t.user, ".codex", "sub") }), false);
  });

  test("the probe refuses it before running anything, on Linux and macOS, naming no path", () => {
    const t = tree();
    for (const platform of ["linux", "darwin"] as const) {
      const found = probeSandbox(
        sandboxPolicy({ workspace: t.user, home: t.home, env: { HOME: t.user }, network: false }),
        // No PATH: had the probe looked for bwrap, it would say "not installed".
        {},
        platform,
      );
      assert.equal(found.sandbox, null);
      assert.equal(found.problem, "workspace_too_wide", platform);
      const message = unavailableMessage(found);
      assert.match(message, /the workspace is the filesystem root, the home folder, or a folder/);
      assert.match(message, /To fix it: open a project folder inside it as the workspace/);
      assert.ok(!message.includes(t.root), message);
    }
  });
});
