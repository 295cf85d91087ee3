/**
 * Prefix rules and the options that change what runs (issue 35, item 6), through the real
 * child: after `npm test` is allowed, `npm test --script-shell=./evil.sh` asks; approving
 * `git -C . status` keeps that exact command, not `git`, so `git -c alias.x='!cmd' x` asks; after
 * `git diff` is allowed, `git diff --output=FILE` asks and creates nothing.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { shellCall } from "./call-specs.js";
import { runCallsTurn } from "./tool-turns.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("turns: options a prefix rule does not cover", () => {
  test("npm test --script-shell, git -c after `git -C . status`, git diff --output: each asks", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    execFileSync("git", ["init", "-q", ws]);
    writeFileSync(
      join(ws, "package.json"),
      JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "echo fine" } }),
    );
    writeFileSync(join(ws, "evil.sh"), "#!/bin/sh\ntouch evil-ran\n");
    chmodSync(join(ws, "evil.sh"), 0o755);
    await world.child.call("session.create", {});
    const run = await runCallsTurn(
      world,
      "ask",
      [
        shellCall("npm test", "c1"),
        shellCall("npm test --silent", "c2"),
        shellCall("npm test --script-shell=./evil.sh", "c3"),
        shellCall("git -C . status", "c4"),
        shellCall("git -c alias.x='!touch alias-ran' x", "c5"),
        shellCall("git diff --stat", "c6"),
        shellCall("git diff --output=made-by-diff.txt", "c7"),
      ],
      ["allow_session", "deny", "allow_session", "deny", "allow_session", "deny"],
    );
    assert.deepEqual(
      run.approvals.map((a) => [a.command, a.rule?.match, a.rule?.text]),
      [
        ["npm test", "prefix", "npm test"],
        ["npm test --script-shell=./evil.sh", "exact", "npm test --script-shell=./evil.sh"],
        ["git -C . status", "exact", "git -C . status"],
        ["git -c alias.x='!touch alias-ran' x", "exact", "git -c 'alias.x=!touch alias-ran' x"],
        ["git diff --stat", "prefix", "git diff"],
        ["git diff --output=made-by-diff.txt", "exact", "git diff --output=made-by-diff.txt"],
      ],
    );
    for (const made of ["evil-ran", "alias-ran", "made-by-diff.txt"])
      assert.ok(!existsSync(join(ws, made)), `${made}: nothing ran unasked`);
    const listed = await world.child.call("approval.rules", { action: "list" });
    assert.deepEqual(
      listed.rules.map((r) => r.text),
      ["npm test", "git -C . status", "git diff"],
    );
  });
});
