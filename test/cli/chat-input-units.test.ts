import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { parseInput } from "../../src/cli/chat/slash-commands.js";
import { newestFirst } from "../../src/cli/sessions/session-list.js";
import { pickByPrefix } from "../../src/cli/sessions/session-ref.js";
import { HistoryFile } from "../../src/cli/turn/history-file.js";
import { type Sandbox, sandbox } from "../helpers/child.js";

// The input history's file and bounds, as docs/store.md ("The chat's input history") gives them.
const HISTORY_NAME = "chat-history.jsonl";
const HISTORY_FILE_BYTES = 1024 * 1024;
const HISTORY_ENTRY_BYTES = 64 * 1024;
const HISTORY_ENTRIES = 500;

describe("chat input: the history file", () => {
  let box: Sandbox;
  let notes: string[];
  let file: HistoryFile;
  beforeEach(() => {
    box = sandbox("mc-history-");
    notes = [];
    file = HistoryFile.forHome({ MC_HOME: box.home }, (t) => notes.push(t));
  });
  afterEach(() => box.cleanup());

  it("appends JSON lines with mode 0600 and loads them newest first, duplicates once", () => {
    for (const entry of ["one", "two\nlines", "one", "three"]) file.append(entry);
    const path = join(box.home, HISTORY_NAME);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readFileSync(path, "utf8"), '"one"\n"two\\nlines"\n"one"\n"three"\n');
    assert.deepEqual(file.load(), ["three", "one", "two\nlines"]);
    assert.deepEqual(notes, []);
  });

  it("skips lines that are not JSON strings; a missing file is an empty history", () => {
    assert.deepEqual(file.load(), []);
    writeFileSync(join(box.home, HISTORY_NAME), '"kept"\nnot json\n42\n"  "\n{"a":1}\n"last"\n');
    assert.deepEqual(file.load(), ["last", "kept"]);
    assert.deepEqual(notes, []);
  });

  it("a message at the entry bound is kept, one byte over is not", () => {
    // The bound is on the JSON line: two quotes and the LF around the text.
    const fits = "x".repeat(HISTORY_ENTRY_BYTES - 3);
    file.append(fits);
    file.append(`${fits}x`);
    assert.deepEqual(file.load(), [fits]);
  });

  it("past the file bound it is rewritten with its newest messages, within half the bound", () => {
    const entry = (i: number) => `${String(i).padStart(6, "0")} ${"y".repeat(1000)}`;
    const line = Buffer.byteLength(`${JSON.stringify(entry(0))}\n`);
    const count = Math.floor(HISTORY_FILE_BYTES / line);
    for (let i = 0; i <= count; i += 1) file.append(entry(i));
    const size = statSync(join(box.home, HISTORY_NAME)).size;
    assert.ok(size <= HISTORY_FILE_BYTES / 2, `shrunk to ${size}`);
    const loaded = file.load();
    assert.equal(loaded[0], entry(count), "the newest is kept");
    assert.equal(
      loaded.length,
      Math.min(HISTORY_ENTRIES, Math.floor(HISTORY_FILE_BYTES / 2 / line)),
    );
    assert.deepEqual(readdirSync(box.home).sort(), [HISTORY_NAME], "no temp file left");
  });

  it("a symlink is never followed: no history, one note, the target untouched", () => {
    const target = join(box.root, "elsewhere.txt");
    writeFileSync(target, '"secret"\n');
    symlinkSync(target, join(box.home, HISTORY_NAME));
    assert.deepEqual(file.load(), []);
    file.append("typed");
    assert.equal(readFileSync(target, "utf8"), '"secret"\n');
    assert.equal(notes.length, 1);
    assert.match(
      notes[0] as string,
      /chat history \(MC_HOME\/chat-history\.jsonl\) cannot be read/,
    );
  });
});

describe("chat input: slash commands, ID prefixes, order", () => {
  it("a one-line /word is a command; // and other slashes are messages", () => {
    assert.deepEqual(parseInput("/help"), { kind: "command", name: "help", arg: "" });
    assert.deepEqual(parseInput("  /model demo/demo-1 high "), {
      kind: "command",
      name: "model",
      arg: "demo/demo-1 high",
    });
    assert.deepEqual(parseInput("//help"), { kind: "message", text: "/help" });
    assert.deepEqual(parseInput("/etc/hosts: what is it?"), {
      kind: "message",
      text: "/etc/hosts: what is it?",
    });
    assert.deepEqual(parseInput("/help\nmore"), { kind: "message", text: "/help\nmore" });
    assert.deepEqual(parseInput("  indented\n  code"), {
      kind: "message",
      text: "  indented\n  code",
    });
  });

  const entry = (id: string, updated_at: string | null) => ({
    id,
    title: null,
    created_at: null,
    updated_at,
    cwd: "verified" as const,
    busy: false,
    open: "exact" as const,
  });

  it("a unique start resolves; an exact ID wins over longer ones; several are an error", () => {
    const sessions = [entry("abc", null), entry("abcd", null), entry("xyz-1", null)];
    assert.equal(pickByPrefix(sessions, "x"), "xyz-1");
    assert.equal(pickByPrefix(sessions, "abc"), "abc");
    assert.equal(pickByPrefix(sessions, "nothing"), "nothing");
    assert.equal(pickByPrefix(sessions, "../x"), "../x", "outside the grammar: passed on");
    assert.throws(() => pickByPrefix(sessions, "ab"), { code: "session_ambiguous" });
  });

  it("newest first by updated_at; no time last; ties keep the backend's order", () => {
    const sorted = newestFirst([
      entry("none", null),
      entry("old", "2026-11-29T09:00:00.000Z"),
      entry("new-a", "2026-11-29T11:00:00.000Z"),
      entry("new-b", "2026-11-29T11:00:00.000Z"),
    ]);
    assert.deepEqual(
      sorted.map((s) => s.id),
      ["new-a", "new-b", "old", "none"],
    );
  });
});
