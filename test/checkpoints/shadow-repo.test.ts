import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { planRevert } from "../../src/agent/checkpoints/plan.js";
import { applyPlan, newTempTag } from "../../src/agent/checkpoints/restore.js";
import { FILE_BYTES, ShadowRepo } from "../../src/agent/checkpoints/shadow-repo.js";
import { treeSnapshot } from "../helpers/tree.js";
import { treeDigest } from "../helpers/tree-digest.js";

function world(gitRepo: boolean) {
  const base = mkdtempSync(join(tmpdir(), "mc-ckpt-"));
  const home = join(base, "home");
  const ws = join(base, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "a.txt"), "one\ntwo\n");
  writeFileSync(join(ws, "run.sh"), "#!/bin/sh\necho hi\n");
  writeFileSync(join(ws, ".gitignore"), "/build/\n*.log\n");
  mkdirSync(join(ws, "src/deep"), { recursive: true });
  writeFileSync(join(ws, "src/deep/x.ts"), "export {};\n");
  mkdirSync(join(ws, "empty"));
  mkdirSync(join(ws, "build"));
  writeFileSync(join(ws, "build/out.bin"), "ignored");
  writeFileSync(join(ws, "trace.log"), "ignored");
  symlinkSync("a.txt", join(ws, "link-a"));
  if (gitRepo) {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: ws });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "first");
  }
  const repo = new ShadowRepo({ home, workspace: ws, env: process.env });
  return { base, home, ws, repo };
}

async function revertTo(repo: ShadowRepo, id: string) {
  const target = await repo.resolve(id);
  assert.ok(target);
  const now = await repo.snapshot();
  const plan = planRevert({
    target: { ...target, entries: await repo.entries(target.tree) },
    now: { ...now, entries: await repo.entries(now.tree) },
    baseline: null,
  });
  await applyPlan(repo, plan, newTempTag());
  return plan;
}

function mess(ws: string) {
  writeFileSync(join(ws, "a.txt"), "one\nTWO\n");
  unlinkSync(join(ws, "src/deep/x.ts"));
  mkdirSync(join(ws, "newdir/inner"), { recursive: true });
  writeFileSync(join(ws, "newdir/inner/n.txt"), "new");
  chmodSync(join(ws, "run.sh"), 0o755);
  symlinkSync("run.sh", join(ws, "link-run"));
  unlinkSync(join(ws, "link-a"));
  symlinkSync("src", join(ws, "link-a"));
  rmSync(join(ws, "empty"), { recursive: true });
  writeFileSync(join(ws, "build/out.bin"), "still ignored, untouched");
}

for (const gitRepo of [true, false]) {
  test(`a checkpoint restores a ${gitRepo ? "git workspace" : "plain folder"} byte for byte`, async () => {
    const { base, ws, repo } = world(gitRepo);
    try {
      const before = treeDigest(ws, [".git"]);
      const dotGit = gitRepo ? treeSnapshot(join(ws, ".git")) : [];
      const gitDigest = gitRepo ? treeDigest(join(ws, ".git")) : {};
      await repo.record("c-00000000000000000000000000000001");
      mess(ws);
      const plan = await revertTo(repo, "c-00000000000000000000000000000001");
      const after = treeDigest(ws, [".git"]);
      // The ignored file keeps what the turn wrote: ignored files are never recorded.
      assert.notEqual(after["build/out.bin"], before["build/out.bin"]);
      delete after["build/out.bin"];
      delete before["build/out.bin"];
      assert.deepEqual(after, before);
      assert.ok(plan.paths.some((p) => p.path === "newdir/inner/n.txt" && p.change === "removed"));
      assert.ok(plan.paths.some((p) => p.path === "src/deep/x.ts" && p.change === "recreated"));
      if (gitRepo) {
        assert.deepEqual(treeSnapshot(join(ws, ".git")), dotGit);
        assert.deepEqual(treeDigest(join(ws, ".git")), gitDigest);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}

test("files over 8 MiB and nested repositories are left out, listed, and never touched", async () => {
  const { base, ws, repo } = world(false);
  try {
    writeFileSync(join(ws, "big.bin"), Buffer.alloc(FILE_BYTES + 1, 1));
    mkdirSync(join(ws, "nested"));
    execFileSync("git", ["init", "-q"], { cwd: join(ws, "nested") });
    writeFileSync(join(ws, "nested/file"), "n");
    const cp = await repo.record("c-00000000000000000000000000000002");
    assert.deepEqual(cp.meta.excluded, ["big.bin", "nested/"]);
    const entries = await repo.entries(cp.tree);
    assert.ok(!entries.has("big.bin"));
    assert.ok(![...entries.keys()].some((p) => p.startsWith("nested")));
    writeFileSync(join(ws, "big.bin"), Buffer.alloc(FILE_BYTES + 2, 2));
    const plan = await revertTo(repo, "c-00000000000000000000000000000002");
    assert.ok(plan.paths.some((p) => p.path === "big.bin" && p.change === "skipped"));
    assert.equal(treeDigest(ws)["nested/file"]?.startsWith("file"), true);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a file that grows past the bound leaves the next checkpoint, and the shadow repo is its own", async () => {
  const { base, home, ws, repo } = world(true);
  try {
    await repo.record("c-00000000000000000000000000000003");
    writeFileSync(join(ws, "a.txt"), Buffer.alloc(FILE_BYTES + 1, 3));
    const second = await repo.record("c-00000000000000000000000000000004");
    assert.ok(!(await repo.entries(second.tree)).has("a.txt"));
    assert.deepEqual(second.meta.excluded, ["a.txt"]);
    // Everything lives under MC_HOME/checkpoints; no temp index or exclude file stays.
    const [key] = readdirSync(join(home, "checkpoints"));
    const names = readdirSync(join(home, "checkpoints", key as string));
    assert.ok(!names.some((n) => n.startsWith("index.") || n.startsWith("exclude.")), names.join());
    assert.equal(await repo.resolve("c-0000000000000000000000000000ffff"), null);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a checkpoint of meta v1 (UTF-8 names) reads back as raw names; v2 stores raw names", async () => {
  const { base, ws, repo } = world(false);
  try {
    mkdirSync(join(ws, "vidé"));
    mkdirSync(Buffer.from([...Buffer.from(`${ws}/`), 0x78, 0xff]));
    writeFileSync(
      Buffer.from([...Buffer.from(`${ws}/`), 0x62, 0xfa]),
      Buffer.alloc(FILE_BYTES + 1),
    );
    writeFileSync(Buffer.from([...Buffer.from(`${ws}/`), 0x73, 0xfa]), "small");
    const cp = await repo.record("c-00000000000000000000000000000005");
    // The big one is left out by its exact bytes (the exclude file holds them), the small kept.
    const names = [...(await repo.entries(cp.tree)).keys()];
    assert.ok(names.includes("s\xfa") && !names.includes("b\xfa"), names.join());
    // Raw: one code unit per byte ("é" is 0xc3 0xa9; 0xff stays itself).
    assert.deepEqual(cp.meta, {
      v: 2,
      excluded: ["b\xfa"],
      empty_dirs: ["empty/", "vid\xc3\xa9/", "x\xff/"],
    });
    assert.deepEqual((await repo.resolve("c-00000000000000000000000000000005"))?.meta, cp.meta);
    const v1 = `mc-agent checkpoint\n\n${JSON.stringify({ v: 1, excluded: ["é.bin"], empty_dirs: ["vidé/"] })}\n`;
    const commit = (await repo.git(["commit-tree", cp.tree, "-F", "-"], { input: v1 }))
      .toString()
      .trim();
    await repo.git([
      "update-ref",
      "refs/mc/checkpoints/c-00000000000000000000000000000006",
      commit,
    ]);
    const old = await repo.resolve("c-00000000000000000000000000000006");
    assert.deepEqual(old?.meta, { v: 2, excluded: ["\xc3\xa9.bin"], empty_dirs: ["vid\xc3\xa9/"] });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
