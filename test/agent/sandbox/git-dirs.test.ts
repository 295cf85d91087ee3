/**
 * Finding every `.git` of a workspace (src/agent/sandbox/git-dirs.ts) on real folders: at any
 * depth, what `.git` files and links point to, links not followed, its two bounds at the bound
 * and one past, a folder changed since its last reading read again, an abort.
 */
import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { GitDirFinder, outermost } from "../../../src/agent/sandbox/git-dirs.js";
import { SandboxRefusal } from "../../../src/agent/sandbox/refusal.js";
import { cleanTrees, tree } from "./sandbox-tree.js";

/** The documented bound, stated here: a changed constant fails this test. */
const GIT_PROTECTED_PATHS = 256;
/** The documented bound, stated here: a changed constant fails this test. */
const GIT_WALK_FOLDERS = 50_000;

afterEach(cleanTrees);

function folders(root: string, ...paths: string[]): void {
  for (const path of paths) mkdirSync(join(root, path), { recursive: true });
}

describe("every .git of the workspace", () => {
  test("at any depth, folders and files, what they point to in the workspace; links not followed", async () => {
    const t = tree();
    const w = t.workspace;
    folders(w, "vendor/lib/.git/hooks", "a/b/c/d/.git", "src/x", "gitdirs/sub", "gitdirs/wt");
    folders(w, "main.git", "real-git", ".git/modules/m");
    // A submodule's `.git` file into the workspace's own .git (already kept), one into a
    // folder of the workspace, and a worktree whose common folder is a bare repository there.
    folders(w, "sub", "mod", "tree");
    writeFileSync(join(w, "mod", ".git"), "gitdir: ../.git/modules/m\n");
    writeFileSync(join(w, "sub", ".git"), "gitdir: ../gitdirs/sub\n");
    writeFileSync(join(w, "tree", ".git"), `gitdir: ${join(w, "gitdirs", "wt")}\n`);
    writeFileSync(join(w, "gitdirs", "wt", "commondir"), "../../main.git\n");
    // A `.git` link into the workspace, one out of it, one to nowhere.
    folders(w, "linked", "out", "dangling");
    symlinkSync(join(w, "real-git"), join(w, "linked", ".git"));
    symlinkSync(t.root, join(w, "out", ".git"));
    symlinkSync(join(w, "none"), join(w, "dangling", ".git"));
    // A linked folder is not walked: vendor's .git is found once, where it lies.
    symlinkSync(join(w, "vendor"), join(w, "src", "vendor-link"));
    // Inside a .git nothing more is listed: it is kept whole.
    folders(w, "vendor/lib/.git/modules/inner/.git");

    const found = await new GitDirFinder(w).find();
    assert.deepEqual(
      found,
      [
        ".git",
        "a/b/c/d/.git",
        "gitdirs/sub",
        "gitdirs/wt",
        "main.git",
        "mod/.git",
        "real-git",
        "sub/.git",
        "tree/.git",
        "vendor/lib/.git",
      ].map((path) => join(w, path)),
    );
  });

  test("the folders bound: at it the walk answers, one past it the command is refused", async () => {
    const t = tree();
    rmSync(join(t.workspace, ".git"), { recursive: true });
    // The workspace and 4 folders below it: 5 folders.
    folders(t.workspace, "a/b", "c", "d");
    const limits = { folders: 5, protectedPaths: GIT_PROTECTED_PATHS };
    assert.deepEqual(await new GitDirFinder(t.workspace, limits).find(), []);
    folders(t.workspace, "e");
    const refused = await new GitDirFinder(t.workspace, limits).find().catch((e: unknown) => e);
    assert.ok(refused instanceof SandboxRefusal);
    assert.match(refused.message, /more than 5 folders, too many to find every \.git in/);
    assert.match(refused.message, /"sandbox": false, which asks the user first/);
    assert.ok(!refused.message.includes(t.root), "no path in the message");
    // A .git folder is not walked, so not counted: its contents cost nothing.
    folders(t.workspace, "e/.git/objects/aa", "e/.git/objects/bb");
    const limitsPlusOne = { ...limits, folders: 6 };
    assert.deepEqual(await new GitDirFinder(t.workspace, limitsPlusOne).find(), [
      join(t.workspace, "e", ".git"),
    ]);
    assert.equal(GIT_WALK_FOLDERS, 50_000);
  });

  test("the protected paths bound: at it the paths, one past it refused", async () => {
    const t = tree();
    folders(t.workspace, "r1/.git", "r2/.git");
    const limits = { folders: GIT_WALK_FOLDERS, protectedPaths: 3 };
    assert.equal((await new GitDirFinder(t.workspace, limits).find()).length, 3);
    folders(t.workspace, "r3/.git");
    const refused = await new GitDirFinder(t.workspace, limits).find().catch((e: unknown) => e);
    assert.ok(refused instanceof SandboxRefusal);
    assert.match(refused.message, /more than 3 \.git \(nested repositories\) to keep read-only/);
    assert.equal(GIT_PROTECTED_PATHS, 256);
  });

  test("a .git made since the last walk is found, in a folder read just now or long ago", async () => {
    const t = tree();
    folders(t.workspace, "old/deep", "fresh");
    const finder = new GitDirFinder(t.workspace);
    assert.deepEqual(await finder.find(), [join(t.workspace, ".git")]);
    // Changed right after its reading: within the file system's clock's reach, read again.
    folders(t.workspace, "fresh/.git");
    assert.deepEqual(
      await finder.find(),
      [".git", "fresh/.git"].map((p) => join(t.workspace, p)),
    );
    // Past that reach the walk remembers the folders; one changed since is read again.
    await sleep(2_100);
    await finder.find();
    folders(t.workspace, "old/deep/.git");
    writeFileSync(join(t.workspace, "old", "deep", "file"), "");
    assert.deepEqual(
      await finder.find(),
      [".git", "fresh/.git", "old/deep/.git"].map((p) => join(t.workspace, p)),
    );
    // And one removed is forgotten.
    rmSync(join(t.workspace, "fresh"), { recursive: true });
    assert.deepEqual(
      await finder.find(),
      [".git", "old/deep/.git"].map((p) => join(t.workspace, p)),
    );
  });

  test("an aborted walk rejects with the abort; outermost keeps no path inside another", async () => {
    const t = tree();
    const stop = new AbortController();
    stop.abort(new Error("interrupted"));
    await assert.rejects(new GitDirFinder(t.workspace).find(stop.signal), /interrupted/);
    assert.deepEqual(outermost(["/w/a/.git", "/w/a/.git/x", "/w/a", "/w/ab", "/w/ab"]), [
      "/w/a",
      "/w/ab",
    ]);
  });
});
