import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { call, context, plan, put, tempWorkspace, toolError } from "./fixture.js";

test("`..` out of the workspace is refused by every file tool, naming only the given path", async (t) => {
  const { workspace, outside } = tempWorkspace(t);
  put(outside, "secret.txt", "secret\n");
  const ctx = context(workspace);
  for (const [tool, input] of [
    ["read_file", { path: "../outside/secret.txt" }],
    ["list_dir", { path: "../outside" }],
    ["search", { pattern: "secret", path: "../outside" }],
    ["write_file", { path: "../outside/new.txt", content: "x" }],
    ["edit_file", { path: "../outside/secret.txt", old_text: "secret", new_text: "x" }],
    ["read_file", { path: "sub/../../outside/secret.txt" }],
  ] as const) {
    const message = await toolError(tool, input, ctx);
    assert.match(message, /outside the workspace/, tool);
    assert.ok(!message.includes(outside) && !message.includes(workspace), message);
  }
  assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret\n");
  assert.ok(!existsSync(join(outside, "new.txt")));
});

test("an absolute path outside is refused without echoing it; one inside works", async (t) => {
  const { workspace, outside } = tempWorkspace(t);
  put(outside, "secret.txt", "secret\n");
  put(workspace, "src/app.ts", "app\n");
  const ctx = context(workspace);
  for (const path of [join(outside, "secret.txt"), "/etc/passwd", "/"]) {
    const message = await toolError("read_file", { path }, ctx);
    assert.equal(message, "that absolute path is outside the workspace");
  }
  const write = await toolError("write_file", { path: join(outside, "n.txt"), content: "x" }, ctx);
  assert.equal(write, "that absolute path is outside the workspace");
  const inside = await plan("read_file", { path: join(workspace, "src/app.ts") }, ctx);
  assert.equal(inside.title, "Read src/app.ts"); // the relative form, not the host path
  assert.match((await inside.execute(ctx)).output, /1\tapp/);
});

test("a symlink out of the workspace is refused, for a file and for a folder on the way", async (t) => {
  const { workspace, outside } = tempWorkspace(t);
  put(outside, "secret.txt", "secret\n");
  symlinkSync(join(outside, "secret.txt"), join(workspace, "link.txt"));
  symlinkSync(outside, join(workspace, "out"));
  const ctx = context(workspace);
  for (const [tool, input] of [
    ["read_file", { path: "link.txt" }],
    ["read_file", { path: "out/secret.txt" }],
    ["list_dir", { path: "out" }],
    ["search", { pattern: "secret", path: "out" }],
    ["write_file", { path: "link.txt", content: "x" }],
    ["write_file", { path: "out/new.txt", content: "x" }],
    ["write_file", { path: "out/deeper/new.txt", content: "x" }],
    ["edit_file", { path: "link.txt", old_text: "secret", new_text: "x" }],
  ] as const) {
    const message = await toolError(tool, input, ctx);
    assert.match(message, /resolves outside the workspace/, `${tool} ${input.path}`);
    assert.ok(!message.includes(outside), message);
  }
  assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret\n");
  assert.ok(!existsSync(join(outside, "new.txt")) && !existsSync(join(outside, "deeper")));
});

test("a symlink inside pointing inside is followed; search does not walk into symlinks", async (t) => {
  const { workspace, outside } = tempWorkspace(t);
  put(workspace, "real/a.txt", "needle\n");
  put(outside, "b.txt", "needle\n");
  symlinkSync(join(workspace, "real"), join(workspace, "alias"));
  symlinkSync(outside, join(workspace, "out"));
  const ctx = context(workspace);
  assert.match((await call("read_file", { path: "alias/a.txt" }, ctx)).output, /needle/);
  const written = await plan("write_file", { path: "alias/a.txt", content: "new\n" }, ctx);
  assert.equal(written.approval?.path, "real/a.txt"); // the real path the write goes to
  await written.execute(ctx);
  assert.equal(readFileSync(join(workspace, "real/a.txt"), "utf8"), "new\n");
  put(workspace, "real/a.txt", "needle\n");
  const found = await call("search", { pattern: "needle" }, ctx);
  assert.equal(found.output, "real/a.txt:1:needle");
});

test("a dangling symlink is refused rather than written through", async (t) => {
  const { workspace, outside } = tempWorkspace(t);
  symlinkSync(join(outside, "not-yet"), join(workspace, "dangling"));
  const ctx = context(workspace);
  for (const path of ["dangling", "dangling/new.txt"]) {
    const message = await toolError("write_file", { path, content: "x" }, ctx);
    assert.match(message, /symbolic link whose target does not exist/);
    assert.ok(!message.includes(outside));
  }
  assert.ok(!existsSync(join(outside, "not-yet")));
});

test("writes under .git/ and .mc/ are refused at any depth, even through a symlink", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, ".git/config", "[core]\n");
  put(workspace, "sub/.git/HEAD", "ref\n");
  mkdirSync(join(workspace, ".mc"));
  symlinkSync(join(workspace, ".git"), join(workspace, "gitlink"));
  const ctx = context(workspace);
  for (const [tool, input] of [
    ["write_file", { path: ".git/config", content: "x" }],
    ["write_file", { path: ".git/hooks/pre-commit", content: "x" }],
    ["write_file", { path: ".mc/anything", content: "x" }],
    ["write_file", { path: ".mc", content: "x" }],
    ["write_file", { path: "sub/.git/HEAD", content: "x" }],
    ["write_file", { path: ".GIT/config", content: "x" }],
    ["write_file", { path: "gitlink/config", content: "x" }],
    ["edit_file", { path: ".git/config", old_text: "core", new_text: "x" }],
  ] as const) {
    const message = await toolError(tool, input, ctx);
    assert.match(message, /writes under \.git\/ and \.mc\/ are refused/, input.path);
  }
  assert.equal(readFileSync(join(workspace, ".git/config"), "utf8"), "[core]\n");
  // Reading them is fine.
  assert.match((await call("read_file", { path: ".git/config" }, ctx)).output, /core/);
});

test("a new file in new folders is created inside; a file in the way of a folder is refused", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "plain.txt", "x\n");
  const ctx = context(workspace);
  const created = await call("write_file", { path: "a/b/c.txt", content: "hi\n" }, ctx);
  assert.equal(created.status, "completed");
  assert.equal(readFileSync(join(workspace, "a/b/c.txt"), "utf8"), "hi\n");
  assert.match(
    await toolError("write_file", { path: "plain.txt/x", content: "" }, ctx),
    /not a directory/,
  );
  assert.match(await toolError("write_file", { path: "a", content: "" }, ctx), /a is a directory/);
  assert.match(
    await toolError("read_file", { path: "missing.txt" }, ctx),
    /^missing.txt: no such file/,
  );
  assert.match(await toolError("read_file", { path: "" }, ctx), /path is empty/);
});
