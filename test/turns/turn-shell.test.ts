/**
 * `shell` through the real child: output streamed as `tool_output_delta` in arrival order while
 * the command runs, the exit code in `tool_done` and in the model's result, a timeout that kills
 * the whole group, the two output bounds (what streams, what the model sees) at their edges,
 * and no provider credential in the command's environment.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, type CallSpec, text } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import {
  bodiesOf,
  itemEvent,
  recordsOf,
  recordsOfCall,
  resultText,
  runApproving,
} from "./tool-turns.js";
import { startTurn, TURN_CAPS, type TurnEvent, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const OUTPUT_BYTES = 16384;
/** What of the command's own output the model sees whole (the bound minus 160 reserved). */
const OUTPUT_CAPACITY = OUTPUT_BYTES - 160;
const STREAM_BYTES = 1048576;

const shell = (command: string, id: string, timeout_ms?: number): CallSpec => ({
  name: "shell",
  input: timeout_ms === undefined ? { command } : { command, timeout_ms },
  id,
});

/** A turn of one step with these shell calls, under full_access; their events by call. */
async function shellTurn(w: TurnWorld, calls: CallSpec[]) {
  const { session } = await w.child.call("session.create", {});
  w.server.reply(answer({ calls }), text("Ran them."));
  const run = await runApproving(w.child, "run", "full_access", []);
  assert.equal(run.result.status, "completed");
  const records = await recordsOf(w.child, session.id);
  const items = bodiesOf(run.events, "tool_call").map((c) => c.item_id as string);
  return {
    run,
    seen: (id: string) => resultText(w.server.requests[1], id),
    record: (id: string) => recordsOfCall(records, id).result,
    streamed: (index: number) =>
      bodiesOf(run.events, "tool_output_delta")
        .filter((d) => d.item_id === items[index])
        .map((d) => d.text as string)
        .join(""),
    done: (index: number) => itemEvent(run.events, "tool_done", items[index] as string),
  };
}

/** Whether a process is gone (a zombie waiting for its reaper counts as gone). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

async function eventually(check: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("turns: shell", () => {
  test("output streams while the command runs, in arrival order; the exit code reaches the model", async () => {
    world = await turnWorld();
    const { child, server } = world;
    const ws = world.box.workspace;
    const { session } = await child.call("session.create", {});
    // Each step waits for a file the test creates only after it saw the previous output, so
    // the order is the command's, and each delta provably arrived before the command ended.
    const waitFor = (name: string) => `while [ ! -e ${name} ]; do sleep 0.05; done`;
    const command = [
      "echo out1",
      waitFor("go1"),
      "echo err1 >&2",
      waitFor("go2"),
      "echo out2",
      "exit 3",
    ].join("; ");
    server.reply(answer({ calls: [shell(command, "c_run")] }), text("It failed with 3."));
    const turn = startTurn(child, "run it", "full_access");
    const isText = (t: string) => (e: TurnEvent) => e.event.text === t;
    await turn.event("tool_output_delta", isText("out1\n"));
    assert.ok(!turn.events().some((e) => e.event.type === "tool_done"), "still running");
    writeFileSync(join(ws, "go1"), "");
    await turn.event("tool_output_delta", isText("err1\n"));
    writeFileSync(join(ws, "go2"), "");
    const frame = await turn.response;
    assert.equal((frame.result as { status: string }).status, "completed");
    const events = turn.events();
    const deltas = bodiesOf(events, "tool_output_delta");
    assert.deepEqual(
      deltas.map((d) => [d.stream, d.text]),
      [
        ["stdout", "out1\n"],
        ["stderr", "err1\n"],
        ["stdout", "out2\n"],
      ],
    );
    const [call] = bodiesOf(events, "tool_call");
    assert.ok(deltas.every((d) => d.item_id === call.item_id));
    const types = events.map((e) => e.event.type);
    assert.ok(types.indexOf("tool_call") < types.indexOf("tool_output_delta"));
    assert.ok(types.lastIndexOf("tool_output_delta") < types.indexOf("tool_done"));
    const done = itemEvent(events, "tool_done", call.item_id);
    assert.deepEqual(
      [done.status, done.exit_code, done.summary, done.diff],
      ["failed", 3, "exit 3", null],
    );
    const seen = resultText(server.requests[1], "c_run");
    assert.equal(seen, "out1\nerr1\nout2\n[exit code 3]");
    const { result } = recordsOfCall(await recordsOf(child, session.id), "c_run");
    assert.deepEqual([result.status, result.exit_code, result.output], ["failed", 3, seen]);
  });

  test("a timeout kills the command's whole group and fails the tool; the turn goes on", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    const command = "sleep 60 & echo $! > bg.pid; echo $$ > sh.pid; echo started; sleep 60";
    const { seen, done, record } = await shellTurn(world, [
      shell(command, "c_slow", 2000),
      shell("echo bye; kill -SEGV $$", "c_signal"),
    ]);
    assert.deepEqual(
      [done(1).status, done(1).exit_code, done(1).summary],
      ["failed", null, "killed by SIGSEGV"],
    );
    assert.equal(seen("c_signal"), "bye\n[killed by signal SIGSEGV]");
    assert.deepEqual(
      [done(0).status, done(0).exit_code, done(0).summary],
      ["failed", null, "timed out after 2000 ms"],
    );
    assert.equal(
      seen("c_slow"),
      "started\n[timed out after 2000 ms; the command's processes were killed]",
    );
    assert.equal(record("c_slow").status, "failed");
    for (const file of ["bg.pid", "sh.pid"]) {
      const pid = Number(readFileSync(join(ws, file), "utf8"));
      assert.ok(pid > 0);
      await eventually(() => gone(pid), `${file} process gone`);
    }
  });

  test("the model sees at most tool_output_bytes: whole at the bound, head + omission + tail past it", async () => {
    world = await turnWorld();
    const fill = (n: number, ch: string) => `head -c ${n} /dev/zero | tr '\\0' ${ch}`;
    const half = OUTPUT_CAPACITY / 2;
    const { seen, streamed } = await shellTurn(world, [
      shell(fill(OUTPUT_CAPACITY, "a"), "c_at"),
      shell(`${fill(half, "a")}; ${fill(half + 1, "b")}`, "c_past"),
    ]);
    assert.equal(seen("c_at"), `${"a".repeat(OUTPUT_CAPACITY)}\n[exit code 0]`);
    const past = seen("c_past");
    assert.equal(
      past,
      `${"a".repeat(half)}\n[... 1 bytes of output omitted ...]\n${"b".repeat(half)}\n[exit code 0]`,
    );
    assert.ok(Buffer.byteLength(past) <= OUTPUT_BYTES);
    // The client still got the whole output: the events have their own, larger bound.
    assert.equal(streamed(1), `${"a".repeat(half)}${"b".repeat(half + 1)}`);
  });

  test("invalid bytes count as the U+FFFD the model receives: whole at the bound, cut one past it", async () => {
    world = await turnWorld();
    // Each 0xff byte reaches the model as U+FFFD, three bytes: the bound counts those.
    const invalid = (n: number) => `head -c ${n} /dev/zero | tr '\\0' '\\377'`;
    const atBound = OUTPUT_CAPACITY / 3;
    const half = OUTPUT_CAPACITY / 2 / 3;
    const { seen } = await shellTurn(world, [
      shell(invalid(atBound), "c_at"),
      shell(invalid(atBound + 1), "c_past"),
      shell(invalid(100_000), "c_flood"),
    ]);
    const bad = "\uFFFD";
    assert.equal(seen("c_at"), `${bad.repeat(atBound)}\n[exit code 0]`);
    assert.equal(
      seen("c_past"),
      `${bad.repeat(half)}\n[... 3 bytes of output omitted ...]\n${bad.repeat(half)}\n[exit code 0]`,
    );
    for (const id of ["c_at", "c_past", "c_flood"])
      assert.ok(Buffer.byteLength(seen(id)) <= OUTPUT_BYTES, `${id} within tool_output_bytes`);
    assert.match(seen("c_flood"), /\[\.\.\. 283776 bytes of output omitted \.\.\.\]/);
  });

  test("at most tool_stream_bytes stream as events, the command runs on and the model sees its tail", async () => {
    world = await turnWorld();
    const { child } = world;
    const fill = (n: number) => `head -c ${n} /dev/zero | tr '\\0' x`;
    const { seen, streamed, done, run } = await shellTurn(world, [
      shell(`${fill(STREAM_BYTES - 1)}; printf y`, "c_at"),
      // All on stdout: how a stderr write interleaves with stdout still in its pipe is the
      // order the two pipes are read in, which no one can fix, so it is not asserted here.
      shell(`${fill(STREAM_BYTES)}; printf z; echo after`, "c_past"),
    ]);
    assert.equal(streamed(0), `${"x".repeat(STREAM_BYTES - 1)}y`);
    assert.equal(streamed(1), "x".repeat(STREAM_BYTES), "one byte past the bound is not streamed");
    assert.equal(done(1).status, "completed");
    const past = seen("c_past");
    assert.match(past, /\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\n/);
    assert.ok(past.endsWith("xxxzafter\n[exit code 0]"), "the model sees the tail");
    assert.ok(Buffer.byteLength(past) <= 16384);
    // Long output is split over many events, each within event_bytes and every frame bounded.
    const deltas = bodiesOf(run.events, "tool_output_delta");
    assert.ok(deltas.length > 100);
    for (const d of deltas) assert.ok(Buffer.byteLength(d.text) <= 65536);
    for (const line of child.rawLines) assert.ok(Buffer.byteLength(line) <= 1048576);
  });

  test("the command's environment holds no provider credential", async () => {
    const secrets = {
      OPENAI_API_KEY: "sk-openai-should-not-leak",
      ANTHROPIC_API_KEY: "sk-ant-should-not-leak",
      OTHER_PROVIDER_TOKEN: "sk-other-should-not-leak",
    };
    const env = { ...secrets, MC_VISIBLE_TO_SHELL: "yes-visible" };
    world = await turnWorld({ env });
    // A second configured provider: its api_key_env is a credential too, though not in use.
    const configFile = join(world.box.home, "config.json");
    const config = JSON.parse(readFileSync(configFile, "utf8"));
    config.providers.other = {
      type: "openai-compatible",
      base_url: world.server.baseUrl,
      api_key_env: "OTHER_PROVIDER_TOKEN",
    };
    writeFileSync(configFile, JSON.stringify(config));
    await world.child.close();
    world.child = await startReady(world.box, TURN_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test-secret-key", ...env },
    });
    const { child, server } = world;
    const { seen, streamed } = await shellTurn(world, [shell("env", "c_env")]);
    const output = streamed(0);
    assert.match(output, /^MC_VISIBLE_TO_SHELL=yes-visible$/m, "the environment is passed");
    assert.match(output, /^PATH=/m);
    assert.match(seen("c_env"), /MC_VISIBLE_TO_SHELL=yes-visible/);
    // Neither the configured key variables nor the standard ones, by name or by value, appear
    // in any frame the child wrote or in anything the model was sent.
    const forbidden = [
      "DEMO_KEY",
      "sk-test-secret-key",
      ...Object.keys(secrets),
      ...Object.values(secrets),
    ];
    const everything = [...child.rawLines, ...server.requests.map((r) => r.raw)].join("\n");
    for (const word of forbidden) assert.ok(!everything.includes(word), `${word} leaked`);
    // The key still went where it belongs.
    assert.equal(server.requests[1]?.headers.authorization, "Bearer sk-test-secret-key");
  });

  test("timeout_ms: shell_timeout_ms is allowed, one past it is a tool error never asked", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(
      answer({
        calls: [shell("touch past.txt", "c_past", 600_001), shell("touch at.txt", "c_at", 600_000)],
      }),
      text("OK."),
    );
    const run = await runApproving(child, "run", "ask", ["deny"]);
    assert.equal(run.approvals[0].command, "touch at.txt");
    assert.match(resultText(server.requests[1], "c_past"), /invalid input|at most 600000/);
    assert.equal(resultText(server.requests[1], "c_at"), "denied by the user");
  });
});
