import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { startReady } from "../helpers/child.js";
import { inSandbox, SESSION_CAPS } from "../helpers/sessions.js";
import { treeSnapshot } from "../helpers/tree.js";

const CAPS = [...SESSION_CAPS, "session.search"];

describe("session.search (the real child)", () => {
  it("finds a title, a user and an assistant message of this workspace only, writing nothing in MC_HOME", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 3);
      store.history("s1", [
        { type: "session_meta", ts: "2026-11-29T10:00:00.000Z", cwd: box.workspace, id: "s1" },
        {
          type: "user_message",
          ts: "2026-11-29T10:00:01.000Z",
          cwd: box.workspace,
          text: "Where is the Quokka?",
        },
        { type: "title", ts: "2026-11-29T10:00:02.000Z", cwd: box.workspace, title: "quokka hunt" },
        {
          type: "assistant_message",
          ts: "2026-11-29T10:00:03.000Z",
          cwd: box.workspace,
          text: "A QUOKKA.",
          model: "demo/demo-1",
        },
      ]);
      store.chat("foreign", { cwd: "/other/workspace", firstMessage: "quokka elsewhere" });
      const before = treeSnapshot(box.home);
      const child = await startReady(box, CAPS);
      children.push(child);
      const page = await child.call("session.search", { query: "quokka" });
      assert.equal(page.complete, true);
      assert.equal(page.cursor, null);
      assert.deepEqual(
        page.hits.map((hit) => [hit.id, hit.record_index, hit.title]),
        [
          ["s1", 1, "quokka hunt"],
          ["s1", 2, "quokka hunt"],
          ["s1", 3, "quokka hunt"],
        ],
      );
      assert.equal(page.hits[0]?.snippet, "Where is the Quokka?");
      assert.deepEqual(treeSnapshot(box.home), before);
    }));

  it("refuses a query past 256 characters or empty, accepts 256; unnegotiated it is refused", () =>
    inSandbox(async (box, children) => {
      const child = await startReady(box, CAPS);
      children.push(child);
      const ok = await child.call("session.search", { query: "q".repeat(256) });
      assert.equal(ok.complete, true);
      for (const query of ["", "q".repeat(257)]) {
        const frame = await child.request("session.search", { query });
        assert.equal(frame.error?.code, "invalid_params");
      }
      const plain = await startReady(box, SESSION_CAPS);
      children.push(plain);
      const refused = await plain.request("session.search", { query: "x" });
      assert.ok(refused.error, "a method not negotiated is refused");
    }));
});
