import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { SESSION_ID_PATTERN } from "../../src/protocol/constants.js";
import { classifyName, STORE_ID_PATTERN } from "../../src/store/layout.js";
import { inspectRoot, openPrimary, StoreUnavailable } from "../../src/store/safe-open.js";

const dir = mkdtempSync(join(tmpdir(), "mc-safe-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("store layout", () => {
  it("uses the wire's session ID grammar", () => {
    assert.equal(STORE_ID_PATTERN.source, SESSION_ID_PATTERN.source);
  });

  it("classifies names", () => {
    assert.deepEqual(classifyName("chat1.jsonl"), { kind: "primary", id: "chat1" });
    assert.deepEqual(classifyName("chat1.lock"), { kind: "lock", id: "chat1" });
    assert.deepEqual(classifyName("chat1.sub-1.jsonl"), { kind: "derived" });
    assert.deepEqual(classifyName("archive"), { kind: "archive" });
    for (const name of [
      ".hidden.jsonl",
      "-x.jsonl",
      "a b.jsonl",
      "x.txt",
      `${"a".repeat(65)}.jsonl`,
      "chat1.json",
    ])
      assert.deepEqual(classifyName(name), { kind: "ignored" }, name);
  });
});

describe("safe opening", () => {
  it("opens a regular file and refuses symlinks, FIFOs and folders", () => {
    writeFileSync(join(dir, "ok.jsonl"), "{}\n");
    symlinkSync(join(dir, "ok.jsonl"), join(dir, "link.jsonl"));
    execFileSync("mkfifo", [join(dir, "fifo.jsonl")]);
    mkdirSync(join(dir, "folder.jsonl"));
    const ok = openPrimary(dir, "ok.jsonl");
    assert.ok(ok.ok);
    if (ok.ok) closeSync(ok.fd);
    assert.deepEqual(openPrimary(dir, "link.jsonl"), { ok: false, problem: "unsafe" });
    assert.deepEqual(openPrimary(dir, "fifo.jsonl"), { ok: false, problem: "unsafe" });
    assert.deepEqual(openPrimary(dir, "folder.jsonl"), { ok: false, problem: "unsafe" });
    assert.deepEqual(openPrimary(dir, "absent.jsonl"), { ok: false, problem: "missing" });
  });

  it("treats a missing root as empty and a symlinked or file root as unavailable", () => {
    assert.equal(inspectRoot(join(dir, "nothing-here")), "missing");
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "rootlink"));
    writeFileSync(join(dir, "rootfile"), "");
    assert.throws(() => inspectRoot(join(dir, "rootlink")), StoreUnavailable);
    assert.throws(() => inspectRoot(join(dir, "rootfile")), StoreUnavailable);
    assert.notEqual(inspectRoot(join(dir, "real")), "missing");
  });
});
