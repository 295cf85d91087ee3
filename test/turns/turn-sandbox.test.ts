/**
 * The `sandboxed` level through the real child and the real bubblewrap (docs/tools.md, "The
 * sandbox"): commands run unasked, may write the workspace but not `.git/`, $HOME, /etc or
 * MC_HOME, cannot read the Codex login, reach no network unless the config turns it on, and
 * leave no process behind; `"sandbox": false` asks first; without bwrap the turn is refused
 * with `sandbox_unavailable` and nothing runs. Skipped, with the reason, where no bubblewrap
 * can start on this machine.
 *
 * The box lives under /var/tmp, not /tmp: the sandbox's /tmp is a private empty one, so paths
 * under the host's /tmp would be missing inside rather than read-only.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { findOnPath } from "../../src/agent/tools/find-on-path.js";
import { CHILD_BIN } from "../../src/conformance/harness.js";
import { answer, type CallSpec, text } from "../fixtures/chat-completions-server.js";
import { until } from "../helpers/fakes.js";
import { type Box, CODEX_SECRET, skipReason, userEnv, varTmpBox } from "./sandbox-box.js";
import { bodiesOf, itemEvent, resultText, runApproving } from "./tool-turns.js";
import { startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

const reason = skipReason();

let world: TurnWorld | undefined;
let box: Box | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  box?.cleanup();
  box = undefined;
});

async function sandboxWorld(config: Record<string, unknown> = {}) {
  box = varTmpBox();
  world = await turnWorld({ box, config, child: { env: userEnv(box) } });
  const init = world.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
  assert.equal(init.extensions.turn.sandbox, "bubblewrap", "the child found bubblewrap");
  await world.child.call("session.create", {});
  return { w: world, b: box };
}

const shell = (command: string, id: string, extra: Record<string, unknown> = {}): CallSpec => ({
  name: "shell",
  input: { command, ...extra },
  id,
});

/** Host processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmdline.includes(marker)) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

describe("the sandboxed level, with the real bubblewrap", { skip: reason ?? false }, () => {
  test("writes inside the workspace work; .git, $HOME, /etc and MC_HOME are read-only; the Codex login is hidden; no network", async () => {
    const { w, b } = await sandboxWorld();
    const port = new URL(w.server.baseUrl).port;
    const calls = [
      shell(
        "echo made > inside.txt && mkdir -p sub && echo deep > sub/f && cat inside.txt",
        "inside",
      ),
      shell("echo x > .git/evil", "git"),
      shell(`echo x > "$HOME/evil"`, "home"),
      shell("echo x > /etc/mc-sandbox-evil", "etc"),
      shell(`echo x > ${b.home}/evil`, "mchome"),
      shell(`cat "$HOME/.codex/auth.json"`, "codex"),
      shell(`echo hi > /dev/tcp/127.0.0.1/${port}`, "net"),
      shell("echo scratch > /tmp/scratch && cat /tmp/scratch", "tmp"),
      // The host's daemons' sockets (system bus, Docker, databases) live under /run: emptied.
      shell("ls -A /run | wc -l", "run"),
    ];
    w.server.reply(answer({ calls }), text("Done."));
    const run = await runApproving(w.child, "work", "sandboxed", []);
    assert.equal(run.result.status, "completed");
    assert.deepEqual(bodiesOf(run.events, "approval_requested"), [], "nothing asked");
    const [started] = bodiesOf(run.events, "turn_started");
    assert.equal(started.permissions, "sandboxed");
    assert.equal(started.sandbox, "bubblewrap");
    for (const call of bodiesOf(run.events, "tool_call")) assert.equal(call.sandboxed, true);
    const seen = (id: string) => resultText(w.server.requests[1], id);

    assert.match(seen("inside"), /^made\n\[exit code 0\]$/);
    assert.equal(readFileSync(join(b.workspace, "inside.txt"), "utf8"), "made\n");
    assert.equal(readFileSync(join(b.workspace, "sub", "f"), "utf8"), "deep\n");
    for (const id of ["git", "home", "etc", "mchome"]) {
      assert.match(seen(id), /Read-only file system/, id);
      assert.match(
        seen(id),
        /\[exit code 1\]\n\[sandbox: only the workspace \(not its \.git\/ and \.mc\/\) and a private \/tmp are writable\. /,
        id,
      );
    }
    assert.ok(!existsSync(join(b.workspace, ".git", "evil")));
    assert.ok(!existsSync(join(b.userHome, "evil")));
    assert.ok(!existsSync("/etc/mc-sandbox-evil"));
    assert.ok(!existsSync(join(b.home, "evil")));
    assert.match(seen("codex"), /No such file or directory/);
    assert.ok(!seen("codex").includes(CODEX_SECRET));
    assert.match(seen("net"), /Connection refused|Network is unreachable/);
    assert.match(seen("net"), /\[sandbox: there is no network, not even to localhost\. /);
    assert.match(seen("tmp"), /^scratch\n\[exit code 0\]$/);
    assert.match(seen("run"), /^0\n\[exit code 0\]$/);
    const done = itemEvent(run.events, "tool_done", bodiesOf(run.events, "tool_call")[1].item_id);
    assert.equal(done.status, "failed");
  });

  test('with "sandbox": {"network": true} in the config, a loopback connect works', async () => {
    const { w } = await sandboxWorld({ sandbox: { network: true } });
    const port = new URL(w.server.baseUrl).port;
    w.server.reply(
      answer({ calls: [shell(`echo hi > /dev/tcp/127.0.0.1/${port} && echo connected`, "net")] }),
      text("Done."),
    );
    const run = await runApproving(w.child, "connect", "sandboxed", []);
    assert.equal(run.result.status, "completed");
    assert.match(resultText(w.server.requests[1], "net"), /^connected\n\[exit code 0\]$/);
  });

  test("a background process that left the process group dies with the command, and with an interrupted turn", async () => {
    const { w } = await sandboxWorld();
    // setsid: outside the group, beyond the group kill; only the PID namespace can end it.
    w.server.reply(
      answer({ calls: [shell("setsid sleep 31337.25 >/dev/null 2>&1 & echo forked", "bg")] }),
      text("Done."),
    );
    const run = await runApproving(w.child, "fork", "sandboxed", []);
    assert.equal(run.result.status, "completed");
    assert.match(resultText(w.server.requests[1], "bg"), /^forked\n/);
    await until(() => processesWith("31337.25").length === 0, "the forked sleep is gone");

    w.server.reply(
      answer({
        calls: [shell("setsid sleep 31338.25 >/dev/null 2>&1 & echo up; sleep 600", "held")],
      }),
      text("never"),
    );
    const turn = startTurn(w.child, "hold", "sandboxed");
    await turn.event("tool_output_delta");
    assert.ok(processesWith("31338.25").length > 0, "the forked sleep runs while the command does");
    await w.child.request("turn.interrupt", { request_id: turn.id });
    const response = await turn.response;
    assert.equal((response.result as { status: string }).status, "interrupted");
    await until(
      () => processesWith("31338.25").length === 0,
      "the forked sleep died with the turn",
    );
  });

  test('"sandbox": false asks first, as under ask; denied stays denied, asked again next time', async () => {
    const { w, b } = await sandboxWorld();
    const outside = `echo escaped > "$HOME/outside-marker"`;
    w.server.reply(
      answer({ calls: [shell(outside, "first", { sandbox: false })] }),
      answer({ calls: [shell(outside, "again", { sandbox: false })] }),
      answer({ calls: [shell(outside, "allowed", { sandbox: false })] }),
      text("Done."),
    );
    const run = await runApproving(w.child, "escalate", "sandboxed", [
      "deny",
      "deny",
      "allow_once",
    ]);
    assert.equal(run.result.status, "completed");
    assert.equal(run.approvals.length, 3, "each unsandboxed run asked");
    for (const asked of run.approvals) {
      assert.equal(asked.kind, "command");
      assert.equal(asked.command, outside);
      assert.match(asked.title, /^Run outside the sandbox: /);
    }
    for (const call of bodiesOf(run.events, "tool_call")) assert.equal(call.sandboxed, false);
    const statuses = bodiesOf(run.events, "tool_done").map((d) => d.status);
    assert.deepEqual(statuses, ["denied", "denied", "completed"]);
    assert.equal(resultText(w.server.requests[1], "first"), "denied by the user");
    assert.equal(resultText(w.server.requests[2], "again"), "denied by the user");
    // Allowed, it ran as the user, outside: $HOME was writable.
    assert.equal(readFileSync(join(b.userHome, "outside-marker"), "utf8"), "escaped\n");
  });
});

describe("sandboxed without a sandbox that starts", () => {
  test("user namespaces refused (the child runs where no new one can be made): the reason and the sysctl", {
    skip: reason ?? false,
  }, async () => {
    box = varTmpBox();
    const bwrap = findOnPath("bwrap", process.env) as string;
    // The child itself runs in a user namespace that may make no other: its probe fails as
    // on a kernel with unprivileged user namespaces off.
    const command = [
      bwrap,
      "--unshare-user",
      "--disable-userns",
      "--bind",
      "/",
      "/",
      "--dev-bind",
      "/dev",
      "/dev",
      "--chdir",
      box.workspace,
      "--",
      process.execPath,
      CHILD_BIN,
      "stdio",
    ];
    world = await turnWorld({ box, child: { command, env: userEnv(box) } });
    const init = world.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
    assert.equal(init.extensions.turn.sandbox, null);
    await world.child.call("session.create", {});
    const reply = await world.child.request("turn.start", { input: "x", permissions: "sandboxed" });
    assert.equal(reply.error?.code, "sandbox_unavailable");
    assert.match(reply.error?.message ?? "", /does not let this user create user namespaces/);
    assert.match(reply.error?.message ?? "", /sysctl -w user\.max_user_namespaces=/);
    assert.equal(world.server.requests.length, 0, "no model call");
  });

  test("bwrap missing from PATH: sandbox_unavailable says why and how to fix it, and nothing runs", async () => {
    box = varTmpBox();
    // A PATH with bash alone: no bwrap on it.
    const bin = join(box.root, "bin");
    mkdirSync(bin);
    symlinkSync("/bin/bash", join(bin, "bash"));
    world = await turnWorld({ box, child: { env: { ...userEnv(box), PATH: bin } } });
    const w = world;
    const init = w.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
    assert.equal(init.extensions.turn.sandbox, null);
    const { session } = await w.child.call("session.create", {});
    w.server.reply(answer({ calls: [shell("echo ran > ran.txt", "c")] }), text("Done."));
    const reply = await w.child.request("turn.start", { input: "work", permissions: "sandboxed" });
    assert.equal(reply.error?.code, "sandbox_unavailable");
    assert.match(
      reply.error?.message ?? "",
      /bubblewrap \(bwrap\) is not installed or not on PATH/,
    );
    assert.match(reply.error?.message ?? "", /apt-get install bubblewrap/);
    assert.ok(!(reply.error?.message ?? "").includes(box.root), "no path in the message");
    assert.equal(w.server.requests.length, 0, "no model call");
    assert.ok(!existsSync(join(box.workspace, "ran.txt")));
    const notified = w.child.frames.filter(
      (f) => (f as { method?: string }).method === "turn.event",
    );
    assert.deepEqual(notified, [], "no turn event");
    const listed = await w.child.call("session.list", {});
    assert.ok(!JSON.stringify(listed).includes(session.id), "the lazy session was not saved");
    // Other levels still work.
    const asked = await runApproving(w.child, "work", "ask", ["deny"]);
    assert.equal(asked.result.status, "completed");
  });
});
