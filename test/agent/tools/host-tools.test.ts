/**
 * The edit tools with a ToolHost at the edge the SDK tests cannot time: an interrupt that comes
 * while the write's last check waits on the editor. The host here is a plain object over a real
 * temp folder (test/acp/client-tools.test.ts has the real SDK between the two).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import type { ToolHost } from "../../../src/agent/tools/tool-host.js";
import { context, plan, put, tempWorkspace, within } from "./fixture.js";

test("an interrupt seen while the editor's text is read again before the write: nothing is written", async (t) => {
  const { workspace } = tempWorkspace(t);
  const file = put(workspace, "a.txt", "one\n");
  const controller = new AbortController();
  let reads = 0;
  const writes: string[] = [];
  const host: ToolHost = {
    async readTextFile(path) {
      reads++;
      // The second read is the check before the write: the user interrupts meanwhile.
      if (reads === 2) controller.abort();
      return readFileSync(path, "utf8");
    },
    async writeTextFile(path, content) {
      writes.push(content);
      writeFileSync(path, content);
    },
  };
  const ctx = context(workspace, { host, signal: controller.signal });
  const planned = await within(
    plan("edit_file", { path: "a.txt", old_text: "one", new_text: "two" }, ctx),
  );
  await assert.rejects(planned.execute(ctx), { message: "a.txt was not written: interrupted" });
  assert.equal(reads, 2);
  assert.deepEqual(writes, []);
  assert.equal(readFileSync(file, "utf8"), "one\n");
});

test("an editor text with a lone surrogate or over the bound is refused before any plan", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "a.txt", "x\n");
  let text = "half \ud83c\n";
  const host: ToolHost = { readTextFile: async () => text };
  const ctx = context(workspace, { host });
  await assert.rejects(plan("edit_file", { path: "a.txt", old_text: "half", new_text: "h" }, ctx), {
    message: "a.txt is not valid UTF-8 text",
  });
  text = "a".repeat(4 * 1024 * 1024 + 1);
  await assert.rejects(plan("write_file", { path: "a.txt", content: "b" }, ctx), {
    message: "a.txt is larger than 4194304 bytes, the most the edit tools handle",
  });
});
