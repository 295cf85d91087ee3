import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { checkCommand } from "../../src/agent/mcp/command-path.js";
import { type Frame, sandbox, TestChild } from "../helpers/child.js";
import { writeMcpHome } from "./mcp-world.js";

/**
 * The check that keeps a command that cannot start `spawn_failed` under the group watchdog
 * (command-path.ts): exec's lookup, on real files in a temp folder.
 */
describe("checkCommand", () => {
  const root = mkdtempSync(join(tmpdir(), "mc-command-path-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, "bin");
  const other = join(root, "other");
  mkdirSync(bin);
  mkdirSync(other);
  mkdirSync(join(bin, "folder"));
  writeFileSync(join(bin, "server"), "#!/bin/sh\n", { mode: 0o755 });
  writeFileSync(join(other, "plain"), "not executable\n", { mode: 0o644 });
  writeFileSync(join(bin, "plain"), "#!/bin/sh\n", { mode: 0o755 });
  writeFileSync(join(other, "locked"), "#!/bin/sh\n", { mode: 0o644 });
  const env = { PATH: `${other}:${bin}` };
  const code = async (command: string, path = env, cwd = root) => {
    try {
      await checkCommand(command, path, cwd);
      return "ok";
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      assert.ok(!failure.message.includes(root), "the message carries no path");
      return failure.code;
    }
  };

  test("a bare name is found on the environment's PATH, past a non-executable file", async () => {
    assert.equal(await code("server"), "ok");
    assert.equal(await code("plain"), "ok");
  });

  test("a name on no PATH entry is ENOENT; an empty command too", async () => {
    assert.equal(await code("no-such-server"), "ENOENT");
    assert.equal(await code("server", { PATH: other }), "ENOENT");
    assert.equal(await code(""), "ENOENT");
  });

  test("only files we may execute: a folder or a file without x is EACCES", async () => {
    // No x bit at all: not even root may execute it.
    assert.equal(await code("locked"), "EACCES");
    assert.equal(await code("folder"), "EACCES");
    assert.equal(await code(join(other, "locked")), "EACCES");
  });

  test("a command with a slash is taken relative to the server's cwd", async () => {
    assert.equal(await code("./server", env, bin), "ok");
    assert.equal(await code("bin/server"), "ok");
    assert.equal(await code("./server"), "ENOENT");
  });
});

// The real child: under the watchdog's /bin/sh, a command that cannot start is still
// `spawn_failed` (not a shell exiting 127 or 126, reported `exited` or `connect_failed`).
test("the real child: a bare name on no PATH entry and a file without x are spawn_failed", async () => {
  const box = sandbox("mc-mcp-command-");
  const locked = join(box.root, "locked-server");
  writeFileSync(locked, "#!/bin/sh\nexec cat\n", { mode: 0o644 });
  writeMcpHome(box.home, {
    absent: { command: "mc-no-such-mcp-server", startup_timeout_ms: 30_000 },
    locked: { command: locked, startup_timeout_ms: 30_000 },
  });
  const child = new TestChild({ cwd: box.workspace, home: box.home });
  try {
    await child.initialize(["mcp"]);
    const failed = (name: string) => (f: Frame) => {
      const server = (f as { params?: { server?: { name?: string; state?: string } } }).params
        ?.server;
      return (
        (f as { method?: string }).method === "mcp.changed" &&
        server?.name === name &&
        server.state === "failed"
      );
    };
    for (const name of ["absent", "locked"])
      if (!child.frames.some(failed(name))) await child.waitFor(failed(name), 60_000);
    const status = await child.request("mcp.status", {});
    const servers = (status.result as { servers: { name: string; error: string | null }[] })
      .servers;
    assert.deepEqual(
      servers.map((s) => [s.name, s.error]),
      [
        ["absent", "spawn_failed"],
        ["locked", "spawn_failed"],
      ],
    );
  } finally {
    await child.close();
    box.cleanup();
  }
});
