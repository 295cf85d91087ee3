import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpStatusResult } from "../../protocol/schemas/mcp.js";
import { SettingsCheckResult, WorkspaceTrustResult } from "../../protocol/schemas/settings.js";
import type { ConformanceCase } from "../case.js";
import type { Sandbox, TestChild } from "../harness.js";

const CLAUSE =
  "docs/trust.md: a project's hooks and mcp_servers run only in a workspace trusted for exactly those members; workspace.trust takes effect in the next child.";

const CAPS = ["mcp", "settings.check", "workspace.trust"];

/** A project file naming one MCP server (whose command does not exist: nothing really runs). */
function writeProject(box: Sandbox, args: string[] = []): void {
  mkdirSync(join(box.workspace, ".mc"), { recursive: true });
  writeFileSync(
    join(box.workspace, ".mc", "config.json"),
    JSON.stringify({
      mcp_servers: { project: { command: "/nonexistent/mc-kit-project-server", args } },
    }),
  );
}

async function trustOf(child: TestChild): Promise<string | undefined> {
  return SettingsCheckResult().parse(await child.call("settings.check", {})).trust;
}

async function serverNames(child: TestChild): Promise<string[]> {
  return McpStatusResult()
    .parse(await child.call("mcp.status", {}))
    .servers.map((s) => s.name);
}

/** `workspace.trust` (ours; docs/trust.md): black-box, frames and the temp folders only. */
export const TRUST_CASES: ConformanceCase[] = [
  {
    id: "trust.untrusted",
    tier: "MUST",
    clause: CLAUSE,
    title: "an untrusted project's MCP server is not started; settings.check says untrusted",
    async run({ ready, box }) {
      writeProject(box);
      const child = await ready(CAPS);
      assert.equal(await trustOf(child), "untrusted");
      assert.deepEqual(await serverNames(child), []);
    },
  },
  {
    id: "trust.next_child",
    tier: "MUST",
    clause: CLAUSE,
    title: "workspace.trust answers restart_child; the next child lists the project's server",
    async run({ ready, box }) {
      writeProject(box);
      const first = await ready(CAPS);
      const answer = WorkspaceTrustResult().parse(
        await first.call("workspace.trust", { trusted: true }),
      );
      assert.deepEqual(answer, { trust: "trusted", configuration_reload: "restart_child" });
      assert.deepEqual(await serverNames(first), [], "this child keeps what it started with");
      await first.close();
      const next = await ready(CAPS);
      assert.equal(await trustOf(next), "trusted");
      assert.deepEqual(await serverNames(next), ["project"]);
    },
  },
  {
    id: "trust.changed",
    tier: "MUST",
    clause: CLAUSE,
    title: "a changed mcp_servers is `changed` and not started; revoke makes it untrusted",
    async run({ ready, box }) {
      writeProject(box);
      const first = await ready(CAPS);
      await first.call("workspace.trust", { trusted: true });
      await first.close();
      writeProject(box, ["--another"]);
      const second = await ready(CAPS);
      assert.equal(await trustOf(second), "changed");
      assert.deepEqual(await serverNames(second), []);
      const revoked = WorkspaceTrustResult().parse(
        await second.call("workspace.trust", { trusted: false }),
      );
      assert.equal(revoked.trust, "untrusted");
    },
  },
  {
    id: "trust.capability",
    tier: "MUST",
    clause: CLAUSE,
    title: "workspace.trust without its capability is unsupported_capability; no trust field",
    async run({ ready, box }) {
      writeProject(box);
      const child = await ready(["settings.check"]);
      assert.equal(
        await child.errorCode("workspace.trust", { trusted: true }),
        "unsupported_capability",
      );
      assert.equal(await trustOf(child), undefined);
    },
  },
];
