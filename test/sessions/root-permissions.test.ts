import assert from "node:assert/strict";
import { chmodSync } from "node:fs";
import { describe, test } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { discoverAll, inSandbox, listAll, startSessions } from "../helpers/sessions.js";
import { unprivilegedChild } from "../helpers/unprivileged.js";

/**
 * A sessions folder the child can list but not enter (0644), or enter but not list (0311), is
 * unreadable as a whole: `session.list` and `session.discover` both answer
 * `discovery_unavailable`, rather than one of them listing the names and counting every history
 * it then cannot open as invalid. Mode bits bind only a child that is not root.
 */
describe("a sessions folder the child cannot use", () => {
  test("list and discover agree: discovery_unavailable, then both list it once usable", async (t) => {
    await inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 3);
      store.chat("chat1");
      store.chat("chat2");
      const run = unprivilegedChild(box);
      if ("skip" in run) return t.skip(run.skip);
      const child = await startSessions(box, run.options);
      children.push(child);
      for (const mode of [0o644, 0o311]) {
        chmodSync(store.root, mode);
        const label = `mode ${mode.toString(8)}`;
        assert.equal(await child.errorCode("session.list", {}), "discovery_unavailable", label);
        assert.equal((await discoverAll(child)).error, "discovery_unavailable", label);
        assert.equal(
          await child.errorCode("session.open", { id: "chat1" }),
          "session_invalid",
          label,
        );
      }
      // The control: the same child lists both histories once it may read and enter the folder.
      chmodSync(store.root, 0o700);
      const listed = await listAll(child);
      const discovered = await discoverAll(child);
      assert.equal(discovered.error, null);
      assert.deepEqual(listed.ids.sort(), ["chat1", "chat2"]);
      assert.deepEqual(discovered.ids.sort(), listed.ids);
      assert.deepEqual(listed.pages.at(-1)?.notices, discovered.pages.at(-1)?.notices);
    });
  });
});
