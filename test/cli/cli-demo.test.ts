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

  it("exits 0, walks all six steps and removes its throwaway home", () => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    for (const step of [1, 2, 3, 4, 5, 6])
      assert.match(run.stdout, new RegExp(`Step ${step} of 6 · `));
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

  it("steps 3, 4 and 6: status, deliberate refresh, explicit selection, restart; or says they are not offered", () => {
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

  it("step 5: a real turn over the protocol (model call, list_dir, model call), then the saved history", () => {
    if (!negotiated.includes("turn")) {
      assert.match(run.stdout, /does not offer .*turn.* yet .* so the turn is skipped/);
      return;
    }
    const step = run.stdout.slice(
      run.stdout.indexOf("Step 5 of 6"),
      run.stdout.indexOf("Step 6 of 6"),
    );
    assert.match(step, /session\.create → \S+ \(saved: false\)/);
    assert.match(step, /seq 0 {2}turn_started: demo\/demo-1 \(high\), ask, created_session true\n/);
    assert.match(step, /seq 1-\d+ {2}message_delta ×\d+: "Let me look at this folder first\."\n/);
    assert.match(step, /seq \d+ {2}tool_call: list_dir \{"path":"\."\} — "List \."\n/);
    assert.match(step, /seq \d+ {2}tool_done: completed, 0 entries\n/);
    // The demo model read the tool result from the request: the workspace is empty.
    assert.match(
      step,
      /message_done: "I looked: this folder is empty, so there is nothing to work on yet\."\n/,
    );
    assert.match(
      step,
      /turn\.start → completed \(end_turn\), 2 model calls, \d+ in \/ \d+ out tokens\n/,
    );
    assert.match(step, /status\.attachment → \S+ \(saved: true\)\n/);
    const records = [...step.matchAll(/^ {4}(\w+)/gm)].map((m) => m[1]);
    assert.deepEqual(records, [
      "session_meta",
      "turn_start",
      "user_message",
      "assistant_message",
      "tool_call",
      "tool_result",
      "assistant_message",
      "turn_end",
    ]);
    assert.match(step, /turn_end: completed \(end_turn\)\n/);
  });
});
