/**
 * `mc-agent rules` as a process through the real child: lists a hand-written rules file (the
 * format of docs/store.md), removes one rule, says plainly when the file is damaged, clears it.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { rulesFileName } from "../helpers/rules-file-name.js";

describe("mc-agent rules (real child)", () => {
  const box = sandbox("mc-cli-rules-");
  after(() => box.cleanup());
  const env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, NO_COLOR: "1" };
  const run = (...args: string[]) =>
    runCli(["rules", ...args], { cwd: box.workspace, env, timeoutMs: 30_000 });
  const path = join(box.home, "rules", rulesFileName(box.workspace));
  const at = "2026-12-01T10:00:00.000Z";

  it("lists, removes one, and clears; a damaged file is named, never a crash", async () => {
    assert.match((await run()).stdout, /No approval rules are kept for this folder\./);
    mkdirSync(join(box.home, "rules"), { mode: 0o700 });
    const file = {
      version: 1,
      workspace: box.workspace,
      rules: [
        {
          id: "w-00000000000000a1",
          effect: "allow",
          created_at: at,
          tool: "shell",
          match: "prefix",
          env: [],
          words: ["npm", "test"],
        },
        {
          id: "w-00000000000000b2",
          effect: "deny",
          created_at: at,
          tool: "shell",
          match: "prefix",
          env: [],
          words: ["git", "push"],
        },
        {
          id: "w-00000000000000c3",
          effect: "allow",
          created_at: at,
          tool: "edit",
          path_glob: "src/**",
        },
      ],
    };
    writeFileSync(path, JSON.stringify(file));
    const listed = await run();
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID\s+EFFECT\s+RULE\s+SINCE/m);
    assert.match(listed.stdout, /w-00000000000000a1\s+allow\s+`npm test` commands/);
    assert.match(listed.stdout, /w-00000000000000b2\s+deny\s+`git push` commands/);
    assert.match(listed.stdout, /w-00000000000000c3\s+allow\s+edits of src\/\*\*/);
    const json = JSON.parse((await run("--json")).stdout);
    assert.equal(json.file, "ok");
    assert.deepEqual(
      json.rules.map((r: { id: string }) => r.id),
      ["w-00000000000000a1", "w-00000000000000b2", "w-00000000000000c3"],
    );

    const removed = await run("remove", "w-00000000000000b2");
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /^Removed\./);
    assert.doesNotMatch(removed.stdout, /git push/);
    assert.deepEqual(
      JSON.parse(readFileSync(path, "utf8")).rules.map((r: { id: string }) => r.id),
      ["w-00000000000000a1", "w-00000000000000c3"],
    );
    const missing = await run("remove", "w-00000000000000b2");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No such rule|rule/i);

    writeFileSync(path, "{damaged");
    const damaged = await run();
    assert.equal(damaged.code, 0, damaged.stderr);
    assert.match(damaged.stdout, /damaged or unsafe and is ignored/);
    assert.match(damaged.stdout, /mc-agent rules clear/);
    assert.ok(!damaged.stdout.includes(box.home), "no path shown");
    const cleared = await run("clear");
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.match(cleared.stdout, /Cleared every rule/);
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).rules, []);

    for (const bad of [["remove"], ["frobnicate"], ["clear", "x"], ["remove", "a", "b"]]) {
      const usage = await run(...bad);
      assert.equal(usage.code, 2, bad.join(" "));
    }
  });
});
