import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { findOnPath } from "../../../src/agent/tools/find-on-path.js";

const root = mkdtempSync(join(tmpdir(), "mc-on-path-"));
after(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function program(dir: string, name: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, mode);
  return path;
}

describe("a program on PATH", () => {
  test("the first folder that has it executable, past missing, empty and unreadable entries", () => {
    const missing = join(root, "missing");
    const plain = folder("plain");
    program(plain, "tool", 0o644);
    const first = folder("first");
    const found = program(first, "tool", 0o755);
    const second = folder("second");
    program(second, "tool", 0o755);
    const PATH = ["", missing, `${program(folder("file"), "x", 0o755)}`, plain, first, second].join(
      ":",
    );
    // A file on PATH (not a folder), a copy without any execute bit (even root may not run
    // it): skipped, as `access` says.
    assert.equal(findOnPath("tool", { PATH }), found);
  });

  test("a folder of that name counts unless a regular file is asked for", () => {
    const dirs = folder("dirs");
    mkdirSync(join(dirs, "git"));
    const real = folder("real");
    const git = program(real, "git", 0o755);
    const PATH = `${dirs}:${real}`;
    assert.equal(findOnPath("git", { PATH }), join(dirs, "git"));
    assert.equal(findOnPath("git", { PATH }, { fileOnly: true }), git);
  });

  test("none: null, and no PATH at all is none", () => {
    assert.equal(findOnPath("mc-no-such-program", { PATH: folder("empty") }), null);
    assert.equal(findOnPath("sh", {}), null);
  });
});
