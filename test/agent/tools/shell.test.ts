import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { livingMembers as groupMembers } from "../../../src/agent/tools/process-group.js";
import { shellEnvironment } from "../../../src/agent/tools/shell-env.js";
import { modelOutputCapacity } from "../../../src/agent/tools/shell-output.js";
import type { ToolContext } from "../../../src/agent/tools/tool.js";
import { call, context, plan, type Streamed, tempWorkspace, toolError, within } from "./fixture.js";

/** The documented bound, stated here: a changed constant fails this test. */
const DEFAULT_SHELL_TIMEOUT_MS = 120_000;

/**
 * Processes of group `pgid` that still run. Zombies do not count: where PID 1 does not reap
 * orphans (some containers), a killed orphan stays a zombie, yet it runs nothing.
 */
function livingMembers(pgid: number): number[] {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  return groupMembers(pgid);
}

/** Whether process `pid` is gone, reaped by its parent (kill(pid, 0) fails). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** The group ID a command printed first (`echo $$`: bash leads its own group). */
const pgidOf = (output: string) => Number(output.split("\n")[0]);

function shellContext(
  workspace: string,
  extra: Partial<ToolContext> & { streamed?: Streamed[] } = {},
) {
  return context(workspace, extra);
}

test("shell runs bash -c in the workspace with stdin empty, and reports the exit code", async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = shellContext(workspace);
  const planned = await plan(
    "shell",
    { command: "pwd; read line || echo no-stdin; echo $BASH_VERSION | cut -c1" },
    ctx,
  );
  assert.equal(planned.title, "Run pwd; read line || echo no-stdin; echo $BASH_VERSION | cut -c1");
  assert.deepEqual(planned.approval, {
    kind: "command",
    command: "pwd; read line || echo no-stdin; echo $BASH_VERSION | cut -c1",
    path: null,
    diff: null,
  });
  const ran = await within(planned.execute(ctx));
  assert.match(ran.output, new RegExp(`^${workspace}\nno-stdin\n\\d\n\\[exit code 0\\]$`));
  assert.deepEqual([ran.status, ran.exit_code, ran.summary], ["completed", 0, "exit 0"]);
  const failed = await within(call("shell", { command: "echo out; echo err >&2; exit 3" }, ctx));
  assert.deepEqual([failed.status, failed.exit_code, failed.summary], ["failed", 3, "exit 3"]);
  assert.equal(failed.output, "out\nerr\n[exit code 3]");
  const signalled = await within(call("shell", { command: "kill -SEGV $$" }, ctx));
  assert.deepEqual([signalled.status, signalled.exit_code], ["failed", null]);
  assert.equal(signalled.output, "[killed by signal SIGSEGV]");
});

test("shell streams stdout and stderr in order, awaiting each delivery", async (t) => {
  const { workspace } = tempWorkspace(t);
  const streamed: Streamed[] = [];
  let inFlight = 0;
  const ctx = shellContext(workspace, {
    async onOutput(stream, text) {
      inFlight++;
      assert.equal(inFlight, 1, "one delivery at a time");
      await new Promise((resolve) => setTimeout(resolve, 5));
      streamed.push({ stream, text });
      // Each line waits for the previous one to be delivered (a file per delivery), so the
      // order across the two pipes is the command's on any machine, not a matter of sleeps.
      writeFileSync(join(workspace, `seen${streamed.length}`), "");
      inFlight--;
    },
  });
  const next = (n: string) => `while [ ! -e seen${n} ]; do sleep 0.01; done`;
  const command =
    "for i in 1 2 3; do " +
    `echo out$i; ${next("$((i * 2 - 1))")}; echo err$i >&2; ${next("$((i * 2))")}; done`;
  const ran = await within(call("shell", { command }, ctx));
  assert.deepEqual(streamed, [
    { stream: "stdout", text: "out1\n" },
    { stream: "stderr", text: "err1\n" },
    { stream: "stdout", text: "out2\n" },
    { stream: "stderr", text: "err2\n" },
    { stream: "stdout", text: "out3\n" },
    { stream: "stderr", text: "err3\n" },
  ]);
  assert.equal(ran.output, "out1\nerr1\nout2\nerr2\nout3\nerr3\n[exit code 0]");
});

test("a slow client back-pressures the command: nothing is lost or reordered", async (t) => {
  const { workspace } = tempWorkspace(t);
  const streamed: string[] = [];
  const ctx = shellContext(workspace, {
    async onOutput(_stream, text) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      streamed.push(text);
    },
  });
  const ran = await within(call("shell", { command: "seq 1 50000" }, ctx));
  const expected = `${Array.from({ length: 50_000 }, (_, i) => i + 1).join("\n")}\n`;
  assert.equal(streamed.join(""), expected);
  assert.equal(ran.status, "completed");
});

test("while a delivery waits, the command blocks on its full pipe", async (t) => {
  const { workspace } = tempWorkspace(t);
  let markerWhileStalled: boolean | null = null;
  const ctx = shellContext(workspace, {
    async onOutput() {
      if (markerWhileStalled !== null) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
      markerWhileStalled = existsSync(join(workspace, "done"));
    },
  });
  // 4 MiB is far past what the pipe and the paused stream hold.
  const command = "head -c 4194304 /dev/zero; touch done";
  const ran = await within(call("shell", { command }, ctx));
  assert.equal(markerWhileStalled, false);
  assert.equal(ran.status, "completed");
  assert.ok(existsSync(join(workspace, "done")));
});

// The timeouts are 2 s: the command must have printed its group ID before it, on a busy machine.
test("a timeout kills the whole group, a grandchild included (failed)", async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = shellContext(workspace);
  const ran = await within(
    call("shell", { command: "echo $$; sleep 100 & wait", timeout_ms: 2000 }, ctx),
  );
  assert.equal(ran.status, "failed");
  assert.equal(ran.exit_code, null);
  assert.equal(ran.summary, "timed out after 2000 ms");
  assert.match(ran.output, /\n\[timed out after 2000 ms; the command's processes were killed\]$/);
  assert.deepEqual(livingMembers(pgidOf(ran.output)), []);
});

test("a group that ignores SIGTERM gets SIGKILL after the grace", async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = shellContext(workspace);
  const command = "trap '' TERM; echo $$; sleep 100 & wait; sleep 100";
  const ran = await within(call("shell", { command, timeout_ms: 2000 }, ctx));
  assert.equal(ran.status, "failed");
  assert.deepEqual(livingMembers(pgidOf(ran.output)), []);
});

test("leftovers of a command that exits are killed with it", async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = shellContext(workspace);
  for (const command of ["echo $$; sleep 100 >/dev/null 2>&1 &", "echo $$; sleep 100 &"]) {
    const ran = await within(call("shell", { command }, ctx));
    assert.equal(ran.status, "completed", command);
    assert.deepEqual(livingMembers(pgidOf(ran.output)), [], command);
  }
});

/** Resolves with `read()`'s value once it is not undefined (polled; bounded by `within`). */
async function until<T>(read: () => T | undefined): Promise<T> {
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Holds this process's event loop, as a busy machine does, without burning a core. */
function holdLoop(done: () => boolean, atLeastMs: number) {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const from = performance.now();
  while (performance.now() - from < atLeastMs || !done()) Atomics.wait(cell, 0, 0, 10);
}

test("output still in the pipe when the drain grace ends is read, though the loop ran late", async (t) => {
  const { workspace } = tempWorkspace(t);
  const streamed: string[] = [];
  let release = () => {};
  const stalled = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The first delivery waits (a slow client): the stream is paused, the shell writes on into
  // the stream's buffer and its pipe until the stream stops reading, and exits.
  const ctx = shellContext(workspace, {
    async onOutput(_stream, text) {
      if (streamed.push(text) === 1) await stalled;
    },
  });
  const rest = "head -c 65536 /dev/zero | tr '\\0' x; printf y";
  const command = `echo $$ > sh.pid; printf a; while [ ! -e go ]; do sleep 0.01; done; ${rest}`;
  const running = within(call("shell", { command }, ctx));
  await until(() => (streamed.length === 1 ? true : undefined));
  const pidFile = join(workspace, "sh.pid");
  const pid = await until(() =>
    existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined,
  );
  writeFileSync(join(workspace, "go"), "");
  // Reaped (not even a zombie): Node has handled the shell's exit, so the drain grace runs.
  await until(() => (gone(pid) ? true : undefined));
  // The client takes the first delivery only when the loop wakes, as on a busy machine, past
  // the grace (500 + 1000 ms after the exit): the grace's timer is then due in the same turn
  // of the loop in which the stream asks for more, before the loop next polls the pipe.
  setImmediate(() => {
    release();
    holdLoop(() => true, 2500);
  });
  const ran = await running;
  assert.equal(streamed.join(""), `a${"x".repeat(65536)}y`);
  assert.ok(ran.output.endsWith("xxy\n[exit code 0]"), "the model sees the tail");
});

test("an abort kills the group (interrupted) and an aborted context starts nothing", async (t) => {
  const { workspace } = tempWorkspace(t);
  const abort = new AbortController();
  const streamed: Streamed[] = [];
  const ctx = shellContext(workspace, {
    signal: abort.signal,
    async onOutput(stream, text) {
      streamed.push({ stream, text });
      abort.abort(); // as soon as the command is seen running
    },
  });
  const ran = await within(call("shell", { command: "echo $$; sleep 100 & sleep 100; wait" }, ctx));
  assert.deepEqual([ran.status, ran.exit_code, ran.summary], ["interrupted", null, "interrupted"]);
  assert.match(ran.output, /\n\[interrupted; the command's processes were killed\]$/);
  assert.deepEqual(livingMembers(pgidOf(ran.output)), []);
  const again = await within(call("shell", { command: "echo never" }, ctx));
  assert.equal(again.status, "interrupted");
  assert.equal(streamed.length, 1);
});

test("the client's stream stops at tool_stream_bytes (at the bound and one past)", async (t) => {
  const { workspace } = tempWorkspace(t);
  for (const extra of [0, 1]) {
    const streamed: Streamed[] = [];
    const ctx = shellContext(workspace, {
      streamed,
      limits: { tool_output_bytes: 16_384, tool_stream_bytes: 100_000, shell_timeout_ms: 600_000 },
    });
    const ran = await within(
      call("shell", { command: `head -c ${100_000 + extra} /dev/zero | tr '\\0' x` }, ctx),
    );
    const total = streamed.reduce((sum, piece) => sum + Buffer.byteLength(piece.text), 0);
    assert.equal(total, 100_000);
    assert.equal(ran.status, "completed");
  }
});

test("the streamed cut falls on a character boundary", async (t) => {
  const { workspace } = tempWorkspace(t);
  const streamed: Streamed[] = [];
  const ctx = shellContext(workspace, {
    streamed,
    limits: { tool_output_bytes: 16_384, tool_stream_bytes: 11, shell_timeout_ms: 600_000 },
  });
  await within(call("shell", { command: "printf 'éééééééé'" }, ctx));
  assert.equal(streamed.map((piece) => piece.text).join(""), "ééééé");
});

test("the model sees at most tool_output_bytes: head, omission line, tail, exit code", async (t) => {
  const { workspace } = tempWorkspace(t);
  const limit = 4096;
  const capacity = modelOutputCapacity(limit);
  const ctx = shellContext(workspace, {
    limits: { tool_output_bytes: limit, tool_stream_bytes: 1_048_576, shell_timeout_ms: 600_000 },
  });
  const whole = await within(
    call("shell", { command: `head -c ${capacity} /dev/zero | tr '\\0' a` }, ctx),
  );
  assert.equal(whole.output, `${"a".repeat(capacity)}\n[exit code 0]`);
  assert.ok(Buffer.byteLength(whole.output) <= limit);
  const command = `printf H; head -c ${capacity - 1} /dev/zero | tr '\\0' m; printf T`;
  const cut = await within(call("shell", { command }, ctx));
  assert.ok(Buffer.byteLength(cut.output) <= limit);
  assert.match(
    cut.output,
    /^Hm+\n\[\.\.\. 1 bytes of output omitted \.\.\.\]\nm+T\n\[exit code 0\]$/,
  );
  const big = await within(call("shell", { command: "seq 1 200000; exit 7" }, ctx));
  assert.ok(Buffer.byteLength(big.output) <= limit);
  assert.match(
    big.output,
    /^1\n2\n3\n[\s\S]*bytes of output omitted[\s\S]*\n200000\n\[exit code 7\]$/,
  );
});

test("timeout_ms: default 120 s, at most shell_timeout_ms (more is a tool error)", async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = shellContext(workspace);
  assert.equal(DEFAULT_SHELL_TIMEOUT_MS, 120_000);
  assert.ok(await plan("shell", { command: "true", timeout_ms: 600_000 }, ctx));
  assert.match(
    await toolError("shell", { command: "true", timeout_ms: 600_001 }, ctx),
    /^invalid input/,
  );
  const tight = shellContext(workspace, {
    limits: { tool_output_bytes: 16_384, tool_stream_bytes: 1_048_576, shell_timeout_ms: 1000 },
  });
  assert.ok(await plan("shell", { command: "true", timeout_ms: 1000 }, tight));
  assert.equal(
    await toolError("shell", { command: "true", timeout_ms: 1001 }, tight),
    "timeout_ms must be at most 1000",
  );
  assert.equal(
    await toolError("shell", { command: "true" }, tight),
    "timeout_ms must be at most 1000",
  );
});

test("shell's environment has no provider credentials; sh runs where there is no bash", async (t) => {
  const { workspace } = tempWorkspace(t);
  const env = shellEnvironment(
    {
      PATH: process.env.PATH,
      HOME: "/home/u",
      OPENAI_API_KEY: "sk-1",
      ANTHROPIC_API_KEY: "sk-2",
      ANTHROPIC_AUTH_TOKEN: "tok",
      CODEX_API_KEY: "sk-3",
      MY_PROVIDER_KEY: "sk-4",
      MC_AGENT_TEST_METHODS: "1",
    },
    ["MY_PROVIDER_KEY"],
  );
  assert.deepEqual(Object.keys(env).sort(), ["HOME", "MC_AGENT_TEST_METHODS", "PATH"]);
  const ctx = shellContext(workspace, { env });
  const ran = await within(
    call("shell", { command: "env | grep -c -E 'KEY|TOKEN'; echo $HOME" }, ctx),
  );
  assert.equal(ran.output, "0\n/home/u\n[exit code 0]");
  const noBash = shellContext(workspace, { env: { PATH: "/nonexistent" } });
  const sh = await within(
    call("shell", { command: '[ -n "$BASH_VERSION" ] && echo bash || echo plain sh' }, noBash),
  );
  assert.equal(sh.output, "plain sh\n[exit code 0]");
});
