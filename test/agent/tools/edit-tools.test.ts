import assert from "node:assert/strict";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { EDIT_FILE_BYTES } from "../../../src/agent/tools/text-file.js";
import { call, context, plan, put, tempWorkspace, toolError } from "./fixture.js";

/** Every name in the folder: a temp file left by an atomic write would show here. */
const names = (folder: string) => readdirSync(folder).sort();

test("write_file creates a file with a /dev/null diff, planned before anything is written", async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = context(workspace);
  const planned = await plan("write_file", { path: "src/new.ts", content: "one\ntwo\n" }, ctx);
  assert.equal(planned.title, "Create src/new.ts");
  const diff = "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n";
  assert.deepEqual(planned.approval, { kind: "edit", command: null, path: "src/new.ts", diff });
  assert.deepEqual(names(workspace), []); // planning wrote nothing
  const result = await planned.execute(ctx);
  assert.deepEqual(result, {
    status: "completed",
    output: "Created src/new.ts (2 lines, +2 -0)",
    summary: "Created 2 lines",
    exit_code: null,
    diff,
  });
  assert.equal(readFileSync(join(workspace, "src/new.ts"), "utf8"), "one\ntwo\n");
  assert.equal(statSync(join(workspace, "src/new.ts")).mode & 0o777, 0o644);
  assert.deepEqual(names(join(workspace, "src")), ["new.ts"]);
});

test("write_file replaces atomically, keeps the mode, and leaves no temp file", async (t) => {
  const { workspace } = tempWorkspace(t);
  const script = put(workspace, "run.sh", "#!/bin/sh\necho old\n");
  chmodSync(script, 0o755);
  const ctx = context(workspace);
  const result = await call(
    "write_file",
    { path: "run.sh", content: "#!/bin/sh\necho new\n" },
    ctx,
  );
  assert.equal(
    result.diff,
    "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo old\n+echo new\n",
  );
  assert.equal(result.output, "Replaced run.sh (2 lines, +1 -1)");
  assert.equal(readFileSync(script, "utf8"), "#!/bin/sh\necho new\n");
  assert.equal(statSync(script).mode & 0o777, 0o755);
  assert.deepEqual(names(workspace), ["run.sh"]);
});

test(`write_file and edit_file handle files up to ${EDIT_FILE_BYTES} bytes (at the bound and one past)`, async (t) => {
  const { workspace } = tempWorkspace(t);
  const ctx = context(workspace);
  const at = "a".repeat(EDIT_FILE_BYTES - 1);
  assert.equal(
    (await call("write_file", { path: "at.txt", content: `${at}\n` }, ctx)).status,
    "completed",
  );
  const over = await toolError("write_file", { path: "x.txt", content: `${at}\n!` }, ctx);
  assert.match(over, /content is larger than 4194304 bytes/);
  put(workspace, "big.txt", `${at}\n!`);
  const edit = await toolError("edit_file", { path: "big.txt", old_text: "!", new_text: "?" }, ctx);
  assert.match(edit, /big.txt is larger than 4194304 bytes/);
  const edited = await call("edit_file", { path: "at.txt", old_text: "a\n", new_text: "b\n" }, ctx);
  assert.equal(edited.status, "completed");
});

test("edit_file replaces exactly once, or every occurrence with replace_all", async (t) => {
  const { workspace } = tempWorkspace(t);
  const file = put(workspace, "a.ts", "let x = 1;\nlet y = 2;\nlet x2 = 1;\n");
  const ctx = context(workspace);
  const planned = await plan(
    "edit_file",
    { path: "a.ts", old_text: "y = 2", new_text: "y = $&" },
    ctx,
  );
  assert.equal(planned.title, "Edit a.ts");
  assert.equal(
    planned.approval?.diff,
    "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n let x = 1;\n-let y = 2;\n+let y = $&;\n let x2 = 1;\n",
  );
  assert.equal(readFileSync(file, "utf8"), "let x = 1;\nlet y = 2;\nlet x2 = 1;\n");
  const done = await planned.execute(ctx);
  assert.equal(done.output, "Edited a.ts: 1 replacement (+1 -1)");
  assert.equal(readFileSync(file, "utf8"), "let x = 1;\nlet y = $&;\nlet x2 = 1;\n"); // literal $&

  const twice = await toolError(
    "edit_file",
    { path: "a.ts", old_text: "= 1;", new_text: "= 3;" },
    ctx,
  );
  assert.equal(
    twice,
    "old_text occurs 2 times in a.ts; add context to make it unique, or set replace_all",
  );
  const none = await toolError("edit_file", { path: "a.ts", old_text: "zzz", new_text: "q" }, ctx);
  assert.equal(none, "old_text was not found in a.ts");
  const all = await call(
    "edit_file",
    { path: "a.ts", old_text: "= 1;", new_text: "= 3;", replace_all: true },
    ctx,
  );
  assert.equal(all.output, "Edited a.ts: 2 replacements (+2 -2)");
  assert.equal(readFileSync(file, "utf8"), "let x = 3;\nlet y = $&;\nlet x2 = 3;\n");
  assert.deepEqual(names(workspace), ["a.ts"]);
  assert.match(
    await toolError("edit_file", { path: "nope.ts", old_text: "a", new_text: "b" }, ctx),
    /no such file/,
  );
  assert.match(
    await toolError("edit_file", { path: "a.ts", old_text: "a", new_text: "a" }, ctx),
    /equal/,
  );
});

test("edit_file refuses binary and non-UTF-8 files; a BOM survives an edit", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "bin", Buffer.from([0x61, 0, 0x62]));
  put(workspace, "latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  const bom = put(workspace, "bom.txt", Buffer.from("\uFEFFhello\n", "utf8"));
  const ctx = context(workspace);
  assert.equal(
    await toolError("edit_file", { path: "bin", old_text: "a", new_text: "c" }, ctx),
    "bin is a binary file",
  );
  assert.equal(
    await toolError("edit_file", { path: "latin1.txt", old_text: "caf", new_text: "c" }, ctx),
    "latin1.txt is not valid UTF-8 text",
  );
  await call("edit_file", { path: "bom.txt", old_text: "hello", new_text: "bye" }, ctx);
  assert.deepEqual(readFileSync(bom), Buffer.from("\uFEFFbye\n", "utf8"));
});

test("an edit whose file changed while its approval waited is refused, not applied", async (t) => {
  const { workspace } = tempWorkspace(t);
  const file = put(workspace, "a.txt", "one\n");
  const ctx = context(workspace);
  const edit = await plan("edit_file", { path: "a.txt", old_text: "one", new_text: "two" }, ctx);
  const create = await plan("write_file", { path: "b.txt", content: "mine\n" }, ctx);
  writeFileSync(file, "one, edited by the user\n");
  put(workspace, "b.txt", "theirs\n");
  await assert.rejects(edit.execute(ctx), /a.txt changed since this edit was prepared/);
  await assert.rejects(create.execute(ctx), /b.txt changed since this edit was prepared/);
  assert.equal(readFileSync(file, "utf8"), "one, edited by the user\n");
  assert.equal(readFileSync(join(workspace, "b.txt"), "utf8"), "theirs\n");
});

test("an edit whose turn was interrupted before its rename writes nothing and leaves no temp file", async (t) => {
  // The engine gives a stuck call up at an interrupt (abort-bound.ts); should the call come
  // unstuck later, the write must not land after the turn has said "interrupted".
  const { workspace } = tempWorkspace(t);
  put(workspace, "a.txt", "old\n");
  const abort = new AbortController();
  const ctx = context(workspace, { signal: abort.signal });
  const replace = await plan("write_file", { path: "a.txt", content: "new\n" }, ctx);
  const create = await plan("write_file", { path: "sub/b.txt", content: "b\n" }, ctx);
  const edit = await plan("edit_file", { path: "a.txt", old_text: "old", new_text: "x" }, ctx);
  abort.abort();
  for (const planned of [replace, create, edit]) {
    await assert.rejects(planned.execute(ctx), /interrupted/);
  }
  assert.equal(readFileSync(join(workspace, "a.txt"), "utf8"), "old\n");
  assert.deepEqual(names(join(workspace, "sub")), []);
  assert.deepEqual(names(workspace), ["a.txt", "sub"]);
});
