import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { StartReach } from "../../src/boot/code-cache-hook.js";
import { sandbox, TestChild } from "../../src/conformance/harness.js";
import {
  folderIn,
  identity,
  names,
  reachOf,
  SKIP,
  start,
  whole,
} from "../helpers/code-cache-folder.js";
import { writeTurnHome } from "../helpers/turn-home.js";
import { TURN_CAPS } from "../turns/turn-harness.js";

/**
 * How far the start that made the code cache's started entry had gone (src/boot/code-cache.ts,
 * code-cache-hook.ts `StartReach`), seen from outside with the real child: a later child that
 * goes further makes the entry again, so the first start after an install (often a frontend's
 * bare initialize) does not hold every later start to its code.
 */

/** The one started entry of the folder (it replaced the early one), whole. */
function startedEntry(folder: string): string {
  const started = names(folder).filter((name) => name.endsWith("-started.bin"));
  assert.equal(started.length, 1, names(folder).join(", "));
  assert.deepEqual(names(folder), started, "the started entry replaces the early one");
  const path = join(folder, started[0] as string);
  assert.ok(whole(path));
  return path;
}

/** A child of the folder `tmp` that can negotiate turns (a demo provider, never called). */
function turnChild(tmp: string): { child: TestChild; cleanup: () => void } {
  const box = sandbox();
  const env = writeTurnHome(box, "http://127.0.0.1:9/v1") as Record<string, string>;
  const child = new TestChild({
    cwd: box.workspace,
    home: box.home,
    env: { ...env, TMPDIR: tmp, MC_AGENT_FAST_START: "0" },
  });
  return { child, cleanup: () => box.cleanup() };
}

describe("the code cache's started entry, by how far its start went (Node 20)", {
  skip: SKIP,
}, () => {
  test("a start that went further than the entry's maker makes it again; one that did not, never", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      const folder = folderIn(tmp);
      await start(tmp);
      const served = startedEntry(folder);
      assert.equal(reachOf(served), StartReach.served);
      const before = identity(served);
      // A session attached: made again at exit, with the sessions' code.
      const { child, cleanup } = turnChild(tmp);
      try {
        assert.ok((await child.initialize(TURN_CAPS)).result);
        assert.ok((await child.request("session.create", {})).result);
      } finally {
        await child.close();
        cleanup();
      }
      const session = startedEntry(folder);
      assert.equal(reachOf(session), StartReach.session);
      assert.notEqual(identity(session), before, "made again");
      // A bare initialize again, and another session: not further, so not made again.
      const made = identity(session);
      await start(tmp);
      const next = turnChild(tmp);
      try {
        assert.ok((await next.child.initialize(TURN_CAPS)).result);
        assert.ok((await next.child.request("session.create", {})).result);
      } finally {
        await next.child.close();
        next.cleanup();
      }
      assert.equal(identity(startedEntry(folder)), made);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
