import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  runThroughShell,
  type ShellCall,
  shellSpawnerUsable,
} from "../../src/agent/checkpoints/git-spawner.js";
import { ShadowRepo } from "../../src/agent/checkpoints/shadow-repo.js";
import { zombiesAfter } from "../helpers/zombies.js";

/**
 * The checkpoints' shell spawner (src/agent/checkpoints/git-spawner.ts) runs a command as
 * execFile would: the same arguments and stdin bytes, only the environment given, the exit
 * status, a timeout and an abort that kill it, stdout bounded.
 */
const cwd = mkdtempSync(join(tmpdir(), "mc-spawner-"));
const env = { PATH: process.env.PATH };
const call = (over: Partial<ShellCall> & Pick<ShellCall, "command" | "args">) =>
  runThroughShell({ cwd, env, timeoutMs: 20_000, maxBytes: 1 << 20, ...over });

test("the shell route is on here unless MC_AGENT_GIT_SPAWN=direct", () => {
  assert.equal(shellSpawnerUsable({}), true);
  assert.equal(shellSpawnerUsable({ MC_AGENT_GIT_SPAWN: "direct" }), false);
});

test("arguments reach the command literally, quotes, expansions and line breaks included", async () => {
  const args = ["it's", '"double"', "$HOME `id` $(id) \\n", "two\nlines", "", " spaced ", "*"];
  const outcome = await call({ command: "printf", args: ["%s\\0", ...args] });
  assert.ok(outcome.ok);
  assert.deepEqual(outcome.stdout.toString("utf8").split("\0").slice(0, -1), args);
});

test("stdin bytes and stdout bytes go through unchanged; the cwd is the call's", async () => {
  const bytes = Buffer.from([0, 1, 0xff, 0x0a, 0x27, 0x80, 0xfe]);
  const echoed = await call({ command: "cat", args: [], input: bytes });
  assert.ok(echoed.ok);
  assert.deepEqual(echoed.stdout, bytes);
  const where = await call({ command: "pwd", args: ["-P"] });
  assert.ok(where.ok);
  assert.equal(
    where.stdout.toString().trim(),
    execFileSync("pwd", ["-P"], { cwd }).toString().trim(),
  );
});

test("the command gets only the environment given", async () => {
  const outcome = await call({
    command: "env",
    args: [],
    env: { PATH: process.env.PATH, ODD: "a'b\nc $X" },
  });
  assert.ok(outcome.ok);
  assert.equal(outcome.stdout.toString(), `PATH=${process.env.PATH}\nODD=a'b\nc $X\n`);
});

test("an exit status, a missing command (127)", async () => {
  const failed = await call({ command: "sh", args: ["-c", "exit 3"] });
  assert.deepEqual(failed.ok ? null : [failed.why, failed.status], ["status", 3]);
  const missing = await call({ command: "no-such-command-here", args: [] });
  assert.deepEqual(missing.ok ? null : [missing.why, missing.status], ["status", 127]);
});

test("stdout at maxBytes is kept; one byte past fails", async () => {
  const at = await call({ command: "head", args: ["-c", "4096", "/dev/zero"], maxBytes: 4096 });
  assert.ok(at.ok);
  assert.equal(at.stdout.length, 4096);
  const past = await call({ command: "head", args: ["-c", "4097", "/dev/zero"], maxBytes: 4096 });
  assert.deepEqual(past.ok ? null : past.why, "too_big");
});

test("a timeout and an abort kill the command itself", async () => {
  const gone = (file: string) => {
    const pid = Number(readFileSync(join(cwd, file), "utf8"));
    assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
  };
  // The command writes its own pid, then sleeps as that same process.
  const sleeper = (file: string) => ["-c", `echo $$ > ${file}; exec sleep 30`];
  const timedOut = await call({ command: "sh", args: sleeper("t.pid"), timeoutMs: 300 });
  assert.equal(timedOut.ok ? null : timedOut.why, "killed");
  gone("t.pid");
  const controller = new AbortController();
  const aborted = call({ command: "sh", args: sleeper("a.pid"), signal: controller.signal });
  setTimeout(() => controller.abort(), 300);
  assert.equal((await aborted).ok ? null : "failed", "failed");
  gone("a.pid");
  const already = await call({ command: "true", args: [], signal: AbortSignal.abort() });
  assert.equal(already.ok ? null : already.why, "killed");
});

test("nice: the command runs 10 steps nicer (the checkpoint beside a turn's model call)", async () => {
  const niceness = async (nice: boolean) => {
    const outcome = await call({ command: "nice", args: [], nice });
    assert.ok(outcome.ok);
    return Number(outcome.stdout.toString().trim());
  };
  const usual = await niceness(false);
  assert.equal(await niceness(true), Math.min(19, usual + 10));
});

test("calls side by side each get their own output", async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 24 }, (_, i) => call({ command: "printf", args: [`call ${i}`] })),
  );
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? o.stdout.toString() : o.why)),
    Array.from({ length: 24 }, (_, i) => `call ${i}`),
  );
});

test("a checkpoint through the shell is the same commit tree as one through execFile", async () => {
  const base = mkdtempSync(join(tmpdir(), "mc-spawner-ws-"));
  const ws = join(base, "ws");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, "a.txt"), "one\n");
  writeFileSync(join(ws, "src", "it's $x.ts"), "export {};\n");
  writeFileSync(join(ws, ".gitignore"), "*.log\n");
  writeFileSync(join(ws, "x.log"), "ignored");
  mkdirSync(join(ws, "empty"));
  try {
    const trees: { tree: string; meta: unknown }[] = [];
    for (const route of [{}, { MC_AGENT_GIT_SPAWN: "direct" }]) {
      const repo = new ShadowRepo({
        home: join(base, `home${trees.length}`),
        workspace: ws,
        env: { ...process.env, ...route },
      });
      const recorded = await repo.record(`c-${"0".repeat(31)}${trees.length}`);
      trees.push({ tree: recorded.tree, meta: recorded.meta });
    }
    assert.deepEqual(trees[0], trees[1]);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test.after(() => rmSync(cwd, { recursive: true, force: true }));

test("every call's background job is reaped: no zombie is left behind", async () => {
  for (let round = 0; round < 3; round++)
    await Promise.all(Array.from({ length: 8 }, () => call({ command: "true", args: [] })));
  assert.deepEqual(await zombiesAfter(process.pid), []);
});
