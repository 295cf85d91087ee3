import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { call, context, put, tempWorkspace, toolError } from "./fixture.js";

/** The documented bound, stated here: a changed constant fails this test. */
const LIST_DIR_ENTRIES = 1000;
/** The documented bound, stated here: a changed constant fails this test. */
const READ_FILE_BYTES = 256 * 1024;
/** The documented bound, stated here: a changed constant fails this test. */
const READ_FILE_LINES = 2000;

const lines = (count: number, make = (i: number) => `line ${i}`) =>
  Array.from({ length: count }, (_, i) => `${make(i + 1)}\n`).join("");

test("read_file numbers lines and reads from offset with limit", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "a.txt", "one\ntwo\nthree\nfour");
  const ctx = context(workspace);
  const whole = await call("read_file", { path: "a.txt" }, ctx);
  assert.equal(whole.output, "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour");
  assert.equal(whole.summary, "Read 4 lines");
  const part = await call("read_file", { path: "a.txt", offset: 2, limit: 2 }, ctx);
  assert.equal(
    part.output,
    "     2\ttwo\n     3\tthree\n[showing lines 2-3; more lines follow: read on with offset 4]",
  );
  const nulls = await call("read_file", { path: "a.txt", offset: null, limit: null }, ctx);
  assert.equal(nulls.output, whole.output); // null for an optional field means absent
  const last = await call("read_file", { path: "a.txt", offset: 4 }, ctx);
  assert.equal(last.output, "     4\tfour");
  assert.match(await toolError("read_file", { path: "a.txt", offset: 5 }, ctx), /past the end/);
  put(workspace, "empty.txt", "");
  assert.equal((await call("read_file", { path: "empty.txt" }, ctx)).output, "(empty file)");
});

test(`read_file: ${READ_FILE_LINES} lines at most (at the bound and one past)`, async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "at.txt", lines(READ_FILE_LINES));
  put(workspace, "past.txt", lines(READ_FILE_LINES + 1));
  const ctx = context(workspace);
  const at = await call("read_file", { path: "at.txt" }, ctx);
  assert.equal(at.output.split("\n").length, READ_FILE_LINES);
  assert.ok(at.output.endsWith(`${READ_FILE_LINES}\tline ${READ_FILE_LINES}`));
  const past = await call("read_file", { path: "past.txt" }, ctx);
  const shown = past.output.split("\n");
  assert.equal(shown.length, READ_FILE_LINES + 1); // the lines and the note
  assert.equal(shown.at(-1), `[showing lines 1-2000; more lines follow: read on with offset 2001]`);
  const rest = await call("read_file", { path: "past.txt", offset: READ_FILE_LINES + 1 }, ctx);
  assert.equal(rest.output, `  2001\tline 2001`);
  assert.equal(
    (await call("read_file", { path: "at.txt", limit: READ_FILE_LINES }, ctx)).status,
    "completed",
  );
  const over = await toolError("read_file", { path: "at.txt", limit: READ_FILE_LINES + 1 }, ctx);
  assert.match(over, /^invalid input: .*2000/);
});

test(`read_file: ${READ_FILE_BYTES} bytes of text at most (at the bound and one past)`, async (t) => {
  const { workspace } = tempWorkspace(t);
  // 1024 lines of 256 bytes each (255 characters and the newline): exactly the bound.
  const body = lines(1024, (i) => String(i % 10).repeat(255));
  assert.equal(Buffer.byteLength(body), READ_FILE_BYTES);
  put(workspace, "at.txt", body);
  put(workspace, "past.txt", `${body}x`);
  const ctx = context(workspace);
  const at = await call("read_file", { path: "at.txt" }, ctx);
  assert.equal(at.output.split("\n").length, 1024);
  const past = await call("read_file", { path: "past.txt" }, ctx);
  const shown = past.output.split("\n");
  assert.equal(shown.length, 1025);
  assert.equal(
    shown.at(-1),
    "[showing lines 1-1024, the 262144-byte limit; read on with offset 1025]",
  );
  const rest = await call("read_file", { path: "past.txt", offset: 1025 }, ctx);
  assert.equal(rest.output, "  1025\tx");
});

test("read_file cuts one line longer than the byte bound at a character boundary", async (t) => {
  const { workspace } = tempWorkspace(t);
  // "é" is 2 bytes: an odd bound would fall inside one.
  put(workspace, "long.txt", `a${"é".repeat(READ_FILE_BYTES)}\nnext\n`);
  const ctx = context(workspace);
  const read = await call("read_file", { path: "long.txt" }, ctx);
  const [first, note] = read.output.split("\n");
  assert.equal(Buffer.byteLength(first as string), 7 + READ_FILE_BYTES - 1);
  assert.ok(!(first as string).includes("\uFFFD"));
  assert.equal(note, "[line 1 is longer than 262144 bytes and was cut; read on with offset 2]");
});

test("read_file refuses binary files and folders", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "image.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
  put(workspace, "late-nul.bin", Buffer.concat([Buffer.alloc(7999, 0x61), Buffer.from([0])]));
  put(
    workspace,
    "nul-after-sniff.txt",
    Buffer.concat([Buffer.alloc(8000, 0x61), Buffer.from([0])]),
  );
  mkdirSync(join(workspace, "folder"));
  const ctx = context(workspace);
  assert.equal(
    await toolError("read_file", { path: "image.png" }, ctx),
    "image.png is a binary file",
  );
  assert.equal(
    await toolError("read_file", { path: "late-nul.bin" }, ctx),
    "late-nul.bin is a binary file",
  );
  assert.equal((await call("read_file", { path: "nul-after-sniff.txt" }, ctx)).status, "completed");
  assert.match(await toolError("read_file", { path: "folder" }, ctx), /not a regular file/);
  assert.match(await toolError("read_file", { path: 42 }, ctx), /^invalid input/);
  assert.match(await toolError("read_file", { path: "a", extra: 1 }, ctx), /^invalid input/);
});

test("list_dir shows kinds sorted by name, never following symlinks", async (t) => {
  const { workspace, outside } = tempWorkspace(t);
  put(workspace, "src/b.ts", "");
  put(workspace, "a.txt", "");
  put(workspace, ".hidden", "");
  symlinkSync(outside, join(workspace, "out"));
  const ctx = context(workspace);
  const listed = await call("list_dir", { path: "." }, ctx);
  assert.equal(listed.output, "file .hidden\nfile a.txt\nsymlink out\ndir src");
  assert.ok(!listed.output.includes(outside));
  assert.equal((await call("list_dir", { path: "src" }, ctx)).output, "file b.ts");
  put(workspace, "odd/two\nlines", "");
  assert.equal((await call("list_dir", { path: "odd" }, ctx)).output, 'file "two\\nlines"');
  mkdirSync(join(workspace, "empty"));
  assert.equal((await call("list_dir", { path: "empty" }, ctx)).output, "(empty folder)");
  assert.match(await toolError("list_dir", { path: "a.txt" }, ctx), /not a directory/);
});

test(`list_dir: ${LIST_DIR_ENTRIES} entries at most (at the bound and one past)`, async (t) => {
  const { workspace } = tempWorkspace(t);
  for (let i = 0; i < LIST_DIR_ENTRIES; i++)
    put(workspace, `at/f${String(i).padStart(4, "0")}`, "");
  for (let i = 0; i <= LIST_DIR_ENTRIES; i++)
    put(workspace, `past/f${String(i).padStart(4, "0")}`, "");
  const ctx = context(workspace);
  const at = await call("list_dir", { path: "at" }, ctx);
  assert.equal(at.output.split("\n").length, LIST_DIR_ENTRIES);
  assert.ok(!at.output.includes("more entries"));
  const past = (await call("list_dir", { path: "past" }, ctx)).output.split("\n");
  assert.equal(past.length, LIST_DIR_ENTRIES + 1);
  assert.equal(past.at(-1), "[1 more entries not shown (the 1000-entry limit)]");
});
