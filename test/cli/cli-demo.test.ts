import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { type CliRun, runCli } from "../helpers/cli.js";

/**
 * `mc-agent demo` runs to completion in a clean environment (empty HOME, no MC_HOME, no keys)
 * against the real child. Each step either shows its real result or says plainly that this
 * child does not offer the capability yet; nothing in between.
 */
describe("mc-agent demo in a clean environment (real child)", () => {
  let box: Sandbox;
  let run: CliRun;
  let negotiated: string[];
  before(async () => {
    box = sandbox();
    run = await runCli(["demo"], {
      cwd: box.workspace,
      env: { PATH: process.env.PATH, HOME: box.home },
      timeoutMs: 60_000,
    });
    negotiated = /Negotiated: (.*)\n/.exec(run.stdout)?.[1]?.split(", ") ?? [];
  });
  after(() => box.cleanup());

  it("exits 0, walks all five steps and removes its throwaway home", () => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    for (const step of [1, 2, 3, 4, 5])
      assert.match(run.stdout, new RegExp(`Step ${step} of 5 · `));
    assert.match(run.stdout, /\nDone/);
    const home = /Throwaway home: (.*)\n/.exec(run.stdout)?.[1] ?? "";
    assert.ok(home.length > 0 && !existsSync(home), "the throwaway home is removed");
    assert.deepEqual(readdirSync(box.home), [], "nothing written to the user's HOME");
    assert.deepEqual(readdirSync(box.workspace), [], "nothing written to the current folder");
    assert.ok(!run.stdout.includes("\x1b"), "no color off a TTY");
  });

  it("step 2: browses to validated completion and opens exactly, or says discovery is not offered", () => {
    if (!negotiated.includes("session.discover")) {
      assert.match(run.stdout, /does not offer session\.discover yet .* so browsing is skipped/);
      return;
    }
    assert.match(run.stdout, /Validated after \d+ steps?: 4 sessions for this folder\./);
    assert.match(run.stdout, / fix-flaky-test +Fix the flaky date test/);
    assert.match(run.stdout, / refactor-parser .* busy\n/);
    assert.match(run.stdout, / legacy-notes .* \?\n/);
    assert.doesNotMatch(run.stdout, / other-project +/);
    assert.doesNotMatch(run.stdout, /subagent-1 /);
    assert.match(run.stdout, /1 invalid or unsafe history left out/);
    assert.match(run.stdout, /session\.open\("other-project"\) → cwd_mismatch/);
    assert.match(run.stdout, /status\.attachment → fix-flaky-test/);
  });

  it("steps 3-5: status, deliberate refresh, explicit selection, restart; or says they are not offered", () => {
    if (!negotiated.includes("model.refresh")) {
      assert.match(
        run.stdout,
        /does not offer .*model\.refresh.* yet .* so refresh and selection is skipped/,
      );
      return;
    }
    assert.match(
      run.stdout,
      /demo \(in use\): no catalog has been cached for it yet; credentials are ready\./,
    );
    assert.match(run.stdout, /→ run "mc-agent refresh demo"/);
    assert.match(run.stdout, /Provider requests so far: 0/);
    assert.match(run.stdout, /model\.refresh → demo: catalog refreshed\./);
    assert.match(run.stdout, /refused \(stale_guard\), unsent/);
    assert.match(run.stdout, /model\.select → demo\/demo-1 \(high\)/);
    assert.match(run.stdout, /Same child, catalog reread: demo\/demo-1\n/);
    assert.match(run.stdout, /New child \(pid \d+\), catalog: demo\/demo-1, demo\/demo-2\n/);
    assert.match(run.stdout, /Done: every step of the client flow ran against the real child\./);
  });
});
