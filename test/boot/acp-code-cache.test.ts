import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CHILD_BIN, type Sandbox, sandbox } from "../../src/conformance/harness.js";

/**
 * `mc-agent acp` on Node 20 starts from dist/child/acp.cjs through V8's code cache, as the stdio
 * child does (src/acp/start.ts, src/boot/code-cache.ts): before, every editor's start compiled
 * the agent's ES modules afresh. Seen from outside: the first start writes one private entry
 * named after the ACP bundle, the next starts use it as it is and answer the same, and the two
 * bundles' entries are pruned apart (an ACP start never drops the child's). Skipped where Node
 * has a compile cache of its own (22.1 and later).
 */
const UID = process.getuid?.() ?? -1;
const HAS_COMPILE_CACHE =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
const SKIP =
  UID < 0 ? "no user IDs here" : HAS_COMPILE_CACHE ? "this Node has a compile cache" : false;

const folderIn = (tmp: string) =>
  join(tmp, `mc-agent-${UID}`, "code-cache", `${process.version}-${process.arch}`);
const names = (folder: string) => (existsSync(folder) ? readdirSync(folder).sort() : []);
const identity = (path: string) => {
  const stat = statSync(path);
  return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
};
function whole(path: string): boolean {
  const bytes = readFileSync(path);
  const data = bytes.subarray(32);
  return (
    data.length > 0 && createHash("sha256").update(data).digest().equals(bytes.subarray(0, 32))
  );
}

/** One editor's start: `initialize`, its result, then EOF; resolves once the agent has exited. */
async function acpInitialize(
  tmp: string,
  box: Sandbox,
  env: Record<string, string> = {},
): Promise<unknown> {
  {
    const agent = spawn(process.execPath, [CHILD_BIN, "acp"], {
      cwd: box.workspace,
      env: { PATH: process.env.PATH ?? "", HOME: box.root, MC_HOME: box.home, TMPDIR: tmp, ...env },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => agent.on("exit", resolve));
    let out = "";
    const line = new Promise<string>((resolve) => {
      agent.stdout.setEncoding("utf8");
      agent.stdout.on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
      });
    });
    agent.stdin.write(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      })}\n`,
    );
    const frame = JSON.parse(await line) as { result?: unknown; error?: unknown };
    agent.stdin.end();
    await exited;
    assert.ok(frame.result, JSON.stringify(frame.error));
    return frame.result;
  }
}

describe("mc-agent acp through the code cache (Node 20)", { skip: SKIP }, () => {
  test("the first start writes one entry of the ACP bundle, the next use it as it is", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-acp-cc-"));
    const box = sandbox("mc-acp-cc-");
    try {
      const folder = folderIn(tmp);
      const first = await acpInitialize(tmp, box);
      const [entry, ...others] = names(folder);
      assert.ok(entry !== undefined && others.length === 0, names(folder).join(", "));
      // Made again with the start's code as the agent exits (code-cache-refresh.ts).
      assert.match(entry, /^acp-[0-9a-f]{32}-\d+-\d+-[0-9a-f]{8}-started\.bin$/);
      const path = join(folder, entry);
      assert.ok(whole(path));
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const before = identity(path);
      assert.deepEqual(await acpInitialize(tmp, box), first);
      assert.equal(identity(path), before, "an accepted entry is not rewritten");
      // The ES bundle's answer, the cache off: the same.
      assert.deepEqual(await acpInitialize(tmp, box, { MC_AGENT_COMPILE_CACHE: "0" }), first);
      assert.deepEqual(names(folder), [entry]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
      box.cleanup();
    }
  });

  test("an ACP start keeps the child's entries: each bundle's are pruned among themselves", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-acp-cc-"));
    const box = sandbox("mc-acp-cc-");
    try {
      const folder = folderIn(tmp);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // The number of entries a folder keeps (code-cache.ts KEPT_ENTRIES): the child's own.
      const childEntries = [1, 2, 3, 4].map((n) => `stdio-${"0".repeat(31)}${n}-1-1-00000000.bin`);
      for (const name of childEntries) writeFileSync(join(folder, name), "x", { mode: 0o600 });
      await acpInitialize(tmp, box);
      const after = names(folder);
      for (const name of childEntries) assert.ok(after.includes(name), after.join(", "));
      assert.equal(after.filter((name) => name.startsWith("acp-")).length, 1, after.join(", "));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
      box.cleanup();
    }
  });

  test("the ACP start's entries and its later script's are pruned apart", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-acp-cc-"));
    const box = sandbox("mc-acp-cc-");
    try {
      const folder = folderIn(tmp);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // As many of dist/child/acp-later.cjs's entries (src/boot/later-script.ts) as a folder
      // keeps of one bundle: acp.cjs's names begin the same way, and must not count them.
      const laterEntries = [1, 2, 3, 4].map(
        (n) => `acp-later-${"0".repeat(31)}${n}-1-1-00000000.bin`,
      );
      for (const name of laterEntries) writeFileSync(join(folder, name), "x", { mode: 0o600 });
      await acpInitialize(tmp, box);
      const after = names(folder);
      for (const name of laterEntries) assert.ok(after.includes(name), after.join(", "));
      assert.equal(after.filter((name) => /^acp-[0-9a-f]{32}-/.test(name)).length, 1);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
      box.cleanup();
    }
  });
});
