import assert from "node:assert/strict";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";

/** Ctrl-C in the middle of `mc-agent demo` at a real terminal: exit 130, no throwaway home left. */
describe("mc-agent demo interrupted", {
  skip: hasScript() ? false : "util-linux script is not installed",
}, () => {
  let box: Sandbox;
  let run: PtyRun | null = null;
  beforeEach(() => {
    box = sandbox("mc-cli-demo-int-");
  });
  afterEach(() => {
    run?.kill();
    box.cleanup();
  });

  for (const step of [2, 5])
    it(`Ctrl-C at step ${step} removes the temporary home`, async () => {
      const tmp = join(box.root, "tmp");
      mkdirSync(tmp);
      const line = `exec ${[process.execPath, CHILD_BIN, "demo"].map(shellQuote).join(" ")}`;
      run = new PtyRun(line, {
        cwd: box.workspace,
        env: { PATH: process.env.PATH, HOME: box.home, TMPDIR: tmp, NO_COLOR: "1" },
      });
      await run.waitFor(`Step ${step} of 6`, 60_000);
      assert.equal(readdirSync(tmp).length, 1, "the demo's temporary folder exists meanwhile");
      run.type("\x03");
      assert.equal(await run.done, 130, run.output);
      assert.match(run.output, /mc-agent demo: the throwaway home was removed\./);
      assert.deepEqual(readdirSync(tmp), [], "nothing is left in the temporary folder");
      assert.deepEqual(readdirSync(box.home), [], "nothing written to the user's HOME");
    });
});
