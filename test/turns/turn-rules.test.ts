/**
 * Approval rules through the real child and a loopback model server: an allow_session prefix
 * rule, a compound command that still asks, allow_always surviving a new child, deny_always
 * refusing without an approval event, approval.rules listing and removing, edit rules by path
 * glob, a bad rules file (ignored and reported, never a crash).
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { RULE_DENIED_OUTPUT } from "../../src/agent/tool-step.js";
import type { ApprovalRulesResult } from "../../src/protocol/schemas/rules.js";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import { rulesFileName } from "../helpers/rules-file-name.js";
import { shellCall, writeCall } from "./call-specs.js";
import { bodiesOf, resultText, runCallsTurn } from "./tool-turns.js";
import { TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The model-visible result of the call `id`. */
function seen(w: TurnWorld, id: string): string {
  const request = w.server.requests.find((r) =>
    r.body.messages.some((m: { tool_call_id?: string }) => m.tool_call_id === id),
  );
  return resultText(request, id);
}

function rulesPath(w: TurnWorld): string {
  return join(w.box.home, "rules", rulesFileName(w.box.workspace));
}

async function newChild(w: TurnWorld): Promise<void> {
  await w.child.close();
  w.child = await startReady(w.box, TURN_CAPS, {
    testMethods: true,
    env: { DEMO_KEY: "sk-test-secret-key", MC_AGENT_TEST_BACKOFF_PERCENT: "1" },
  });
  await w.child.call("session.create", {});
}

/** A package whose `npm test` appends its arguments to log.txt. */
function npmPackage(ws: string): void {
  writeFileSync(
    join(ws, "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "echo ran >> log.txt" } }),
  );
}

describe("turns: approval rules", () => {
  test("allow_session keeps a prefix rule: `npm test --silent` runs unasked; a compound command still asks", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    npmPackage(ws);
    await world.child.call("session.create", {});
    const first = await runCallsTurn(
      world,
      "ask",
      [
        shellCall("npm test", "c1"),
        shellCall("npm test --silent", "c2"),
        shellCall("npm test && echo sneaky >> log.txt", "c3"),
        shellCall("npm testx", "c4"),
      ],
      ["allow_session", "deny", "deny"],
    );
    assert.deepEqual(first.approvals[0].rule, {
      tool: "shell",
      match: "prefix",
      env: [],
      words: ["npm", "test"],
      text: "npm test",
    });
    assert.equal(first.approvals[1].command, "npm test && echo sneaky >> log.txt");
    assert.equal(first.approvals[1].rule, null, "a compound command offers no rule");
    assert.equal(first.approvals[2].command, "npm testx");
    assert.equal(readFileSync(join(ws, "log.txt"), "utf8"), "ran\nran\n");
    // The session rule is listed, removable, and then the same command asks again.
    const listed = await world.child.call("approval.rules", { action: "list" });
    assert.equal(listed.file, "absent");
    assert.deepEqual(
      listed.rules.map((r) => [r.scope, r.effect, r.text]),
      [["session", "allow", "npm test"]],
    );
    const removed = await world.child.call("approval.rules", {
      action: "remove",
      rule_id: listed.rules[0]?.id as string,
    });
    assert.deepEqual(removed.rules, []);
    await runCallsTurn(world, "ask", [shellCall("npm test", "c5")], ["allow_once"]);
    assert.equal(
      await world.child.errorCode("approval.rules", { action: "remove", rule_id: "s-99" }),
      "rule_missing",
    );
    assert.ok(!existsSync(join(world.box.home, "rules")), "session rules never touch the disk");
  });

  test("allow_always survives a new child; an edit rule keeps its path glob; the file is strict and private", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    const first = await runCallsTurn(
      world,
      "ask",
      [shellCall("ls -a", "c1"), writeCall("notes/a.md", "a\n", "c2")],
      ["allow_always", { decision: "allow_always", path_glob: "notes/**" }],
    );
    assert.equal(first.approvals[0].rule.text, "ls");
    assert.deepEqual(first.approvals[1].rule, {
      tool: "edit",
      path_glob: null,
      text: "every edit in the workspace",
    });
    const path = rulesPath(world);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(world.box.home, "rules")), [rulesFileName(ws)]);
    const file = JSON.parse(readFileSync(path, "utf8"));
    assert.equal(file.version, 1);
    assert.equal(file.workspace, ws);
    assert.deepEqual(
      file.rules.map((r: Record<string, unknown>) => {
        const { id, created_at, ...rest } = r;
        assert.match(String(id), /^w-[0-9a-f]{16}$/);
        assert.ok(!Number.isNaN(Date.parse(String(created_at))));
        return rest;
      }),
      [
        { effect: "allow", tool: "shell", match: "prefix", env: [], words: ["ls"] },
        { effect: "allow", tool: "edit", path_glob: "notes/**" },
      ],
    );
    await newChild(world);
    const second = await runCallsTurn(
      world,
      "ask",
      [
        shellCall("ls -la notes", "c3"),
        writeCall("notes/deep/b.md", "b\n", "c4"),
        writeCall("c.txt", "c\n", "c5"),
      ],
      ["deny"],
    );
    assert.deepEqual(
      second.approvals.map((a) => a.path),
      ["c.txt"],
    );
    assert.match(seen(world, "c3"), /a\.md|deep/);
    assert.equal(readFileSync(join(ws, "notes/deep/b.md"), "utf8"), "b\n");
    assert.ok(!existsSync(join(ws, "c.txt")));
    // Listed with their IDs; removing one through approval.rules makes it ask again.
    const listed = await world.child.call("approval.rules", { action: "list" });
    assert.equal(listed.file, "ok");
    assert.deepEqual(
      listed.rules.map((r) => [r.scope, r.text]),
      [
        ["workspace", "ls"],
        ["workspace", "edits of notes/**"],
      ],
    );
    await world.child.call("approval.rules", {
      action: "remove",
      rule_id: listed.rules[0]?.id as string,
    });
    await runCallsTurn(world, "ask", [shellCall("ls", "c6")], ["deny"]);
    assert.equal(JSON.parse(readFileSync(path, "utf8")).rules.length, 1);
  });

  test("deny_always refuses later calls without an approval event, at every level", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    writeFileSync(join(ws, "keep.txt"), "k\n");
    await world.child.call("session.create", {});
    await runCallsTurn(world, "ask", [shellCall("rm keep.txt", "c1")], ["deny_always"]);
    assert.ok(existsSync(join(ws, "keep.txt")));
    await newChild(world);
    for (const [level, id] of [
      ["ask", "c2"],
      ["full_access", "c3"],
    ] as const) {
      const run = await runCallsTurn(world, level, [shellCall("rm -f keep.txt", id)], []);
      assert.equal(bodiesOf(run.events, "approval_requested").length, 0);
      const done = bodiesOf(run.events, "tool_done");
      assert.deepEqual(
        done.map((d) => [d.status, d.summary]),
        [["denied", "denied by a rule"]],
      );
      assert.equal(seen(world, id), RULE_DENIED_OUTPUT);
    }
    assert.ok(existsSync(join(ws, "keep.txt")), "nothing a deny rule refused ran");
  });

  test("turn.approve refuses a rule that cannot be kept, and the approval stays pending", async () => {
    world = await turnWorld();
    await world.child.call("session.create", {});
    world.server.reply(answer({ calls: [shellCall("echo a | cat", "c1")] }));
    world.server.reply(answer({ calls: [writeCall("x/a.txt", "a\n", "c2")] }));
    world.server.reply(text("Finished."));
    const { startTurn, finishTurn } = await import("./turn-harness.js");
    const turn = startTurn(world.child, "go", "ask");
    const asked = await turn.event("approval_requested");
    const id = asked.event.approval_id as string;
    for (const decision of ["allow_always", "deny_always"])
      assert.equal(
        await world.child.errorCode("turn.approve", { approval_id: id, decision }),
        "invalid_params",
      );
    assert.equal(
      await world.child.errorCode("turn.approve", {
        approval_id: id,
        decision: "allow_session",
        path_glob: "**",
      }),
      "invalid_params",
    );
    await world.child.call("turn.approve", { approval_id: id, decision: "allow_once" });
    const edit = await turn.event("approval_requested", (e) => e.event.approval_id !== id);
    const editId = edit.event.approval_id as string;
    for (const [decision, glob] of [
      ["allow_always", "y/**"],
      ["allow_once", "x/**"],
      ["deny", "x/**"],
      ["allow_always", "../x"],
    ])
      assert.equal(
        await world.child.errorCode("turn.approve", {
          approval_id: editId,
          decision,
          path_glob: glob,
        }),
        "invalid_params",
        `${decision} ${glob}`,
      );
    await world.child.call("turn.approve", {
      approval_id: editId,
      decision: "allow_session",
      path_glob: "x/*.txt",
    });
    const { result } = await finishTurn(world.child, turn);
    assert.equal(result.status, "completed");
    const listed = await world.child.call("approval.rules", { action: "list" });
    assert.deepEqual(
      listed.rules.map((r) => r.text),
      ["edits of x/*.txt"],
    );
    assert.ok(!existsSync(join(world.box.home, "rules")));
  });

  test("a bad rules file is ignored and reported, never crashes a turn; clear replaces it", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    await runCallsTurn(world, "ask", [shellCall("ls", "c1")], ["allow_always"]);
    const path = rulesPath(world);
    const good = readFileSync(path, "utf8");
    const bad = [
      "{not json",
      JSON.stringify({ ...JSON.parse(good), extra: 1 }),
      JSON.stringify({ ...JSON.parse(good), workspace: "/elsewhere" }),
      JSON.stringify({ ...JSON.parse(good), rules: [{ ...JSON.parse(good).rules[0], words: [] }] }),
      good.replace('"prefix"', '"fuzzy"'),
    ];
    for (const bytes of bad) {
      writeFileSync(path, bytes);
      // Its allow rule no longer applies: asked again; allow_always falls back to the session.
      await runCallsTurn(
        world,
        "ask",
        [shellCall("ls", "c2"), shellCall("ls -a", "c3")],
        ["allow_always"],
      );
      assert.equal(readFileSync(path, "utf8"), bytes, "an invalid file is never rewritten");
      const listed: ApprovalRulesResult = await world.child.call("approval.rules", {
        action: "list",
      });
      assert.equal(listed.file, "invalid");
      assert.deepEqual(
        listed.rules.map((r) => [r.scope, r.text]),
        [["session", "ls"]],
      );
      assert.equal(
        await world.child.errorCode("approval.rules", {
          action: "remove",
          rule_id: "w-0123456789abcdef",
        }),
        "rules_unavailable",
      );
      await world.child.call("approval.rules", {
        action: "remove",
        rule_id: listed.rules[0]?.id as string,
      });
    }
    assert.match(world.child.stderr, /approval rules file is invalid and ignored/);
    assert.ok(!world.child.stderr.includes(world.box.home), "no path in the report");
    // A symlink in place of the file is unsafe: ignored, and never followed by a write.
    const target = join(world.box.root, "elsewhere.json");
    writeFileSync(target, good);
    rmSync(path);
    symlinkSync(target, path);
    await runCallsTurn(world, "ask", [shellCall("ls", "c4")], ["allow_once"]);
    assert.equal((await world.child.call("approval.rules", { action: "list" })).file, "invalid");
    // clear replaces whatever is there with an empty file.
    const cleared = await world.child.call("approval.rules", { action: "clear" });
    assert.deepEqual(cleared, { file: "ok", rules: [] });
    assert.equal(readFileSync(target, "utf8"), good, "the symlink's target was not written");
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).rules, []);
    // A folder in place of MC_HOME/rules: invalid, and clear cannot fix it (rules_unavailable).
    rmSync(join(world.box.home, "rules"), { recursive: true });
    mkdirSync(join(world.box.root, "real-rules"));
    symlinkSync(join(world.box.root, "real-rules"), join(world.box.home, "rules"));
    assert.equal((await world.child.call("approval.rules", { action: "list" })).file, "invalid");
    assert.equal(
      await world.child.errorCode("approval.rules", { action: "clear" }),
      "rules_unavailable",
    );
    await runCallsTurn(world, "ask", [shellCall("ls", "c5")], ["allow_always"]);
    assert.deepEqual(readdirSync(join(world.box.root, "real-rules")), []);
    assert.ok(existsSync(ws));
  });
});
