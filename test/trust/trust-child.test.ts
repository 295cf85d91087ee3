/**
 * Workspace trust in the real child (docs/trust.md): a cloned repository whose .mc/config.json
 * names an MCP server runs it only after workspace.trust, in the next child; editing its
 * mcp_servers asks again (`changed`); revoke; the home folder's file is global; the method
 * without its capability is refused.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type Sandbox, sandbox, TestChild } from "../helpers/child.js";
import { memoryStdio } from "../mcp/mcp-world.js";

type Status = { name: string; state: string; tools: number };

const CAPS = ["mcp", "settings.check", "workspace.trust", "model.catalog"];

/** A repository with a project MCP server, cloned into the sandbox's workspace as a user would. */
function cloneRepository(box: Sandbox, config: object): void {
  const origin = join(box.root, "origin");
  mkdirSync(join(origin, ".mc"), { recursive: true });
  writeFileSync(join(origin, ".mc", "config.json"), JSON.stringify(config, null, 2));
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, stdio: "pipe", env: { ...process.env, HOME: box.root } });
  git(origin, "init", "-q");
  git(origin, "add", "-A");
  git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "project");
  execFileSync("rmdir", [box.workspace]);
  git(box.root, "clone", "-q", origin, box.workspace);
}

async function started(box: Sandbox, caps = CAPS): Promise<TestChild> {
  const child = new TestChild({ cwd: box.workspace, home: box.home });
  const init = await child.initialize(caps);
  assert.ok(init.result, JSON.stringify(init.error));
  return child;
}

async function call<T>(child: TestChild, method: string, params: object = {}): Promise<T> {
  const answer = await child.request(method, params);
  assert.ok(answer.result, `${method}: ${JSON.stringify(answer.error)}`);
  return answer.result as T;
}

const trustOf = async (child: TestChild) =>
  (await call<{ trust: string }>(child, "settings.check")).trust;
const servers = async (child: TestChild) =>
  (await call<{ servers: Status[] }>(child, "mcp.status")).servers;

/** Until the named server is ready (a real server on a loaded machine may take seconds). */
async function ready(child: TestChild, name: string): Promise<Status> {
  for (;;) {
    const found = (await servers(child)).find((s) => s.name === name);
    assert.ok(found, `${name} is not listed`);
    if (found.state !== "starting") return found;
    await child
      .waitFor((f) => (f as { method?: string }).method === "mcp.changed", 120_000)
      .catch(() => {});
  }
}

test("a cloned repository's MCP server runs only once the workspace is trusted; an edit asks again; revoke", {
  timeout: 600_000,
}, async () => {
  const box = sandbox("mc-trust-");
  try {
    cloneRepository(box, { model: "demo/demo-1", mcp_servers: { memory: memoryStdio() } });
    // Untrusted: the rest of the project file applies, its server does not start.
    let child = await started(box);
    assert.equal(await trustOf(child), "untrusted");
    assert.deepEqual(await servers(child), []);
    const catalog = await call<{ selection: { model: string } }>(child, "model.catalog");
    assert.equal(catalog.selection.model, "demo/demo-1");
    const answer = await call<object>(child, "workspace.trust", { trusted: true });
    assert.deepEqual(answer, { trust: "trusted", configuration_reload: "restart_child" });
    // At the next child start, not in this one (docs/trust.md).
    assert.equal(await trustOf(child), "untrusted");
    assert.deepEqual(await servers(child), []);
    await child.close();

    child = await started(box);
    assert.equal(await trustOf(child), "trusted");
    const memory = await ready(child, "memory");
    assert.equal(memory.state, "ready");
    assert.ok(memory.tools > 0);
    await child.close();

    // A changed server (one more argument) is not what was trusted.
    const path = join(box.workspace, ".mc", "config.json");
    const config = JSON.parse(readFileSync(path, "utf8"));
    config.mcp_servers.memory.args.push("--extra");
    writeFileSync(path, JSON.stringify(config));
    child = await started(box);
    assert.equal(await trustOf(child), "changed");
    assert.deepEqual(await servers(child), []);
    await call(child, "workspace.trust", { trusted: true });
    await child.close();
    child = await started(box);
    assert.equal(await trustOf(child), "trusted");
    assert.deepEqual(
      (await servers(child)).map((s) => s.name),
      ["memory"],
    );
    const revoked = await call<object>(child, "workspace.trust", { trusted: false });
    assert.deepEqual(revoked, { trust: "untrusted", configuration_reload: "restart_child" });
    await child.close();
    child = await started(box);
    assert.equal(await trustOf(child), "untrusted");
    assert.deepEqual(await servers(child), []);
    await child.close();
    // Kept under MC_HOME, never in the workspace: git sees only the edit made above.
    assert.ok(existsSync(join(box.home, "trust")));
    assert.equal(
      execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
        cwd: box.workspace,
      }).toString(),
      " M .mc/config.json\n",
    );
  } finally {
    box.cleanup();
  }
});

test("in the home folder .mc/config.json is the global file: its servers run, no trust asked", {
  timeout: 600_000,
}, async () => {
  const box = sandbox("mc-trust-home-");
  try {
    // HOME is the workspace and MC_HOME its .mc, the default layout.
    const home = join(box.workspace, ".mc");
    mkdirSync(home);
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        providers: { demo: { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" } },
        mcp_servers: { memory: memoryStdio() },
      }),
    );
    const child = new TestChild({ cwd: box.workspace, home });
    try {
      assert.ok((await child.initialize(CAPS)).result);
      const check = await call<{ trust: string; files: { file: string; state: string }[] }>(
        child,
        "settings.check",
      );
      assert.equal(check.trust, "trusted");
      // Read once, as the global file; not again as a project file (which it would fail).
      assert.deepEqual(
        check.files.map((f) => [f.file, f.state]),
        [
          ["global", "valid"],
          ["project", "absent"],
        ],
      );
      assert.equal((await ready(child, "memory")).state, "ready");
      await call(child, "workspace.trust", { trusted: true });
      assert.ok(!existsSync(join(home, "trust")), "no trust record for the global file");
    } finally {
      await child.close();
    }
  } finally {
    box.cleanup();
  }
});

test("workspace.trust and settings.check's trust exist only with the capability", async () => {
  const box = sandbox("mc-trust-cap-");
  try {
    cloneRepository(box, { mcp_servers: { memory: memoryStdio() } });
    const child = await started(box, ["settings.check"]);
    try {
      const refused = await child.request("workspace.trust", { trusted: true });
      assert.equal(refused.error?.code, "unsupported_capability");
      const check = await call<object>(child, "settings.check");
      assert.ok(!("trust" in check));
      assert.ok(!existsSync(join(box.home, "trust")), "a refused request wrote nothing");
      const bad = await child.request("workspace.trust", { trusted: "yes" });
      assert.equal(bad.error?.code, "unsupported_capability");
    } finally {
      await child.close();
    }
    const negotiated = await started(box);
    try {
      const bad = await negotiated.request("workspace.trust", { trusted: "yes" });
      assert.equal(bad.error?.code, "invalid_params");
      assert.ok(!existsSync(join(box.home, "trust")), "bad params wrote nothing");
    } finally {
      await negotiated.close();
    }
  } finally {
    box.cleanup();
  }
});
