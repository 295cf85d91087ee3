/**
 * The execution-time half of write confinement: the folder a write lands in is reached one name
 * at a time without following a symlink and held, and write_file / edit_file re-resolve their
 * path at execution, so a swap between planning (the approval) and execution writes nothing
 * outside the workspace or under `.git/`.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ToolError } from "../../../src/agent/tools/tool.js";
import { holdWorkspaceFolder } from "../../../src/agent/tools/workspace-folder.js";
import { writeFileAtomicIn } from "../../../src/store/atomic-write.js";
import { context, plan, put, tempWorkspace, within } from "./fixture.js";

const SWAPPED = "x/y.txt: a folder on its path changed; nothing was written";

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolError, `a ToolError, not ${String(error)}`);
    return error.message;
  }
  assert.fail("it succeeded");
}

for (const [walk, useProc] of [
  ["/proc walk", true],
  ["absolute-path walk", false],
] as const) {
  test(`${walk}: missing folders are made one level at a time and the held folder is the inside one`, async (t) => {
    const { workspace } = tempWorkspace(t);
    const folder = await holdWorkspaceFolder(workspace, ["a", "b", "c"], "a/b/c/f", true, useProc);
    try {
      assert.equal(folder.absolute, join(workspace, "a", "b", "c"));
      assert.ok(folder.inPlace());
      if (process.platform === "linux")
        assert.equal(folder.viaProc, useProc, "Linux steps through /proc");
      await writeFile(folder.at("f"), "held\n");
      assert.equal(readFileSync(join(workspace, "a", "b", "c", "f"), "utf8"), "held\n");
      assert.ok(statSync(join(workspace, "a", "b")).isDirectory());
    } finally {
      await folder.close();
    }
  });

  test(`${walk}: a symlink, a file, a missing folder or \`..\` on the way is refused, naming no host path`, async (t) => {
    const { workspace, outside } = tempWorkspace(t);
    mkdirSync(join(workspace, "inside"));
    symlinkSync(outside, join(workspace, "out"));
    symlinkSync(join(workspace, "inside"), join(workspace, "in"));
    put(workspace, "file", "not a folder\n");
    for (const [parts, create] of [
      [["out"], true],
      [["in"], true],
      [["file"], true],
      [["missing"], false],
      [[".."], true],
      [["inside", "..", "out"], true],
    ] as const) {
      const message = await refusal(
        holdWorkspaceFolder(workspace, [...parts], "x/y.txt", create, useProc),
      );
      assert.equal(message, SWAPPED, parts.join("/"));
    }
    assert.deepEqual(readdirSync(outside), []);
    assert.ok(!existsSync(join(workspace, "missing")));
  });

  test(`${walk}: a held folder is the inode reached, and says when it was moved`, async (t) => {
    const { workspace, outside } = tempWorkspace(t);
    mkdirSync(join(workspace, "sub"));
    const folder = await holdWorkspaceFolder(workspace, ["sub"], "sub/f", false, useProc);
    try {
      // The folder moves away and a symlink out takes its name.
      renameSync(join(workspace, "sub"), join(workspace, "moved"));
      symlinkSync(outside, join(workspace, "sub"));
      assert.equal(folder.inPlace(), false, "it is no longer at sub/");
      if (folder.viaProc) {
        await writeFileAtomicIn(folder.path, "f", Buffer.from("x"), 0o644);
        assert.equal(readFileSync(join(workspace, "moved", "f"), "utf8"), "x");
      }
      // A gate that checks inPlace() (as writeWorkspaceFile's does) refuses before the rename.
      const refused = new Error("moved");
      await assert.rejects(
        writeFileAtomicIn(folder.path, "g", Buffer.from("y"), 0o644, (rename) => {
          if (!folder.inPlace()) throw refused;
          return rename();
        }),
        (error) => error === refused,
      );
      assert.deepEqual(readdirSync(outside), []);
      assert.deepEqual(
        readdirSync(join(workspace, "moved")).filter((n) => n !== "f"),
        [],
        "no temp file left",
      );
    } finally {
      await folder.close();
    }
  });
}

/** Plans `input` for `tool`, runs `swap` (the approval's wait), then executes. */
async function planSwapRun(
  workspace: string,
  tool: "write_file" | "edit_file",
  input: Record<string, unknown>,
  swap: () => void,
): Promise<string> {
  const ctx = context(workspace);
  const planned = await plan(tool, input, ctx);
  swap();
  return refusal(within(planned.execute(ctx)));
}

test("write_file and edit_file confine again at execution: new, replaced, missing parents, .git", async (t) => {
  const { workspace: ws, outside } = tempWorkspace(t);
  const toOutside = (name: string) => () => {
    rmSync(join(ws, name), { recursive: true, force: true });
    symlinkSync(outside, join(ws, name));
  };
  mkdirSync(join(ws, "n"));
  assert.equal(
    await planSwapRun(ws, "write_file", { path: "n/new.txt", content: "x" }, toOutside("n")),
    "n/new.txt resolves outside the workspace",
  );
  put(ws, "r/f.txt", "same\n");
  put(outside, "f.txt", "same\n");
  assert.equal(
    await planSwapRun(ws, "write_file", { path: "r/f.txt", content: "x" }, toOutside("r")),
    "r/f.txt resolves outside the workspace",
  );
  put(ws, "e/f.txt", "same\n");
  assert.equal(
    await planSwapRun(
      ws,
      "edit_file",
      { path: "e/f.txt", old_text: "same", new_text: "lost" },
      toOutside("e"),
    ),
    "e/f.txt resolves outside the workspace",
  );
  assert.equal(
    await planSwapRun(ws, "write_file", { path: "m/b/new.txt", content: "x" }, () =>
      symlinkSync(outside, join(ws, "m")),
    ),
    "m/b/new.txt resolves outside the workspace",
  );
  mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
  mkdirSync(join(ws, "g", "hooks"), { recursive: true });
  assert.equal(
    await planSwapRun(ws, "write_file", { path: "g/hooks/pre-commit", content: "x" }, () => {
      rmSync(join(ws, "g"), { recursive: true });
      symlinkSync(join(ws, ".git"), join(ws, "g"));
    }),
    "g/hooks/pre-commit: writes under .git/ and .mc/ are refused",
  );
  assert.deepEqual(readdirSync(outside), ["f.txt"]);
  assert.equal(readFileSync(join(outside, "f.txt"), "utf8"), "same\n");
  assert.deepEqual(readdirSync(join(ws, ".git", "hooks")), []);
});

test("a target swapped for a symlink or a FIFO while waiting is refused, without blocking", async (t) => {
  const { workspace: ws } = tempWorkspace(t);
  put(ws, "a.txt", "same\n");
  put(ws, "b.txt", "same\n");
  assert.equal(
    await planSwapRun(ws, "write_file", { path: "a.txt", content: "x" }, () => {
      rmSync(join(ws, "a.txt"));
      symlinkSync("b.txt", join(ws, "a.txt"));
    }),
    "a.txt changed since this edit was prepared; read it again",
  );
  assert.equal(readFileSync(join(ws, "b.txt"), "utf8"), "same\n");
  put(ws, "p.txt", "same\n");
  assert.equal(
    await planSwapRun(ws, "edit_file", { path: "p.txt", old_text: "same", new_text: "x" }, () => {
      rmSync(join(ws, "p.txt"));
      execFileSync("mkfifo", [join(ws, "p.txt")]);
    }),
    "p.txt changed since this edit was prepared; read it again",
  );
});

test("an unchanged path still writes: new file in new folders, replacement keeps its mode", async (t) => {
  const { workspace: ws } = tempWorkspace(t);
  const ctx = context(ws);
  await (await plan("write_file", { path: "x/y/z.txt", content: "new\n" }, ctx)).execute(ctx);
  assert.equal(readFileSync(join(ws, "x", "y", "z.txt"), "utf8"), "new\n");
  const script = put(ws, "run.sh", "echo 1\n");
  execFileSync("chmod", ["0755", script]);
  const edit = { path: "run.sh", old_text: "1", new_text: "2" };
  await (await plan("edit_file", edit, ctx)).execute(ctx);
  assert.equal(readFileSync(script, "utf8"), "echo 2\n");
  assert.equal(statSync(script).mode & 0o7777, 0o755);
  assert.deepEqual(readdirSync(ws).sort(), ["run.sh", "x"], "no temp file left");
});
