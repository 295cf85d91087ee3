/**
 * The `sandboxed` level against the host, through the real child and the real bubblewrap
 * (docs/tools.md, "The sandbox"): the host's /proc cannot be opened for writing (no test ever
 * writes one: the script only opens), and every `.git` of the workspace, at any depth and
 * whatever points to it, is read-only, within the walk's bound (one past it, nothing runs).
 * Skipped, with the reason, where no bubblewrap can start on this machine.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { findOnPath } from "../../src/agent/tools/find-on-path.js";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { shellCall } from "./call-specs.js";
import { type Box, skipReason, userEnv, varTmpBox } from "./sandbox-box.js";
import { bodiesOf, resultText, runApproving } from "./tool-turns.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

/** The documented bound, stated here: a changed constant fails this test. */
const GIT_WALK_FOLDERS = 50_000;

const reason = skipReason();

let world: TurnWorld | undefined;
let box: Box | undefined;
let binFolders: string[] = [];
afterEach(async () => {
  for (const folder of binFolders) rmSync(folder, { recursive: true, force: true });
  binFolders = [];
  await world?.close();
  world = undefined;
  box?.cleanup();
  box = undefined;
});

/** A sandboxed world on a box prepared by `prepare` before the child starts. */
async function sandboxWorld(
  prepare: (b: Box) => void = () => {},
  env: Record<string, string> = {},
  parent?: string,
) {
  box = varTmpBox(parent);
  prepare(box);
  world = await turnWorld({ box, child: { env: { ...userEnv(box), ...env } } });
  const init = world.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
  assert.equal(init.extensions.turn.sandbox, "bubblewrap", "the child found bubblewrap");
  await world.child.call("session.create", {});
  return { w: world, b: box };
}

/** Opens each path for writing (O_WRONLY) and closes it, writing nothing; prints the outcome. */
const OPEN_ONLY =
  "const fs = require('node:fs');" +
  "for (const p of process.argv.slice(1)) {" +
  "  try { fs.closeSync(fs.openSync(p, fs.constants.O_WRONLY)); console.log(p, 'OPENED'); }" +
  "  catch (e) { console.log(p, e.code); } }";

/** /dev/shm when it is a memory file system here, else the box's usual parent. */
function memoryFolder(): string | undefined {
  try {
    return readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .some((line) => /^\S+ \/dev\/shm tmpfs /.test(line))
      ? "/dev/shm"
      : undefined;
  } catch {
    return undefined;
  }
}

const PROC_FILES = ["/proc/sys/vm/overcommit_ratio", "/proc/sysrq-trigger"];

describe("the sandboxed level and the host", { skip: reason ?? false }, () => {
  test("/proc/sys and /proc/sysrq-trigger cannot be opened for writing, even as root", async () => {
    const { w } = await sandboxWorld();
    const command = `'${process.execPath}' -e "${OPEN_ONLY}" ${PROC_FILES.join(" ")}`;
    w.server.reply(answer({ calls: [shellCall(command, "proc")] }), text("Done."));
    const run = await runApproving(w.child, "look", "sandboxed", []);
    assert.equal(run.result.status, "completed");
    const seen = resultText(w.server.requests[1], "proc");
    assert.ok(!seen.includes("OPENED"), seen);
    // As root the mode lets the open reach the read-only mount; as another user it refuses.
    const refusal = process.getuid?.() === 0 ? "EROFS" : "EACCES";
    for (const path of PROC_FILES) {
      const expected = existsSync(path) ? refusal : "ENOENT";
      assert.match(seen, new RegExp(`^${path} ${expected}$`, "m"), path);
    }
  });

  test("every .git at any depth is read-only, and what a .git file points to; the rest of a nested repository is writable; a .git made by one command is kept from the next", async () => {
    const { w, b } = await sandboxWorld((b) => {
      const ws = b.workspace;
      mkdirSync(join(ws, "vendor", "lib", ".git", "hooks"), { recursive: true });
      mkdirSync(join(ws, "deep", "a", "b", "c", ".git"), { recursive: true });
      mkdirSync(join(ws, "gitdirs", "mod", "hooks"), { recursive: true });
      mkdirSync(join(ws, "mod"));
      writeFileSync(join(ws, "mod", ".git"), "gitdir: ../gitdirs/mod\n");
    });
    const calls = [
      shellCall("echo evil > vendor/lib/.git/hooks/pre-commit", "hook"),
      shellCall("echo x > deep/a/b/c/.git/config", "deep"),
      shellCall("echo 'gitdir: /var/tmp/elsewhere' > mod/.git", "pointer"),
      shellCall("echo evil > gitdirs/mod/hooks/post-checkout", "gitdir"),
      shellCall("echo ok > vendor/lib/file.txt && cat vendor/lib/file.txt", "lib"),
      shellCall("mkdir -p later/.git/hooks && echo made", "make"),
      shellCall("echo evil > later/.git/hooks/pre-commit", "later"),
    ];
    w.server.reply(answer({ calls }), text("Done."));
    const run = await runApproving(w.child, "work", "sandboxed", []);
    assert.equal(run.result.status, "completed");
    assert.deepEqual(bodiesOf(run.events, "approval_requested"), [], "nothing asked");
    const seen = (id: string) => resultText(w.server.requests[1], id);
    for (const id of ["hook", "deep", "pointer", "gitdir", "later"]) {
      assert.match(seen(id), /Read-only file system/, id);
      assert.match(seen(id), /\[exit code 1\]\n\[sandbox: /, id);
    }
    const ws = b.workspace;
    assert.ok(!existsSync(join(ws, "vendor", "lib", ".git", "hooks", "pre-commit")));
    assert.ok(!existsSync(join(ws, "deep", "a", "b", "c", ".git", "config")));
    assert.equal(readFileSync(join(ws, "mod", ".git"), "utf8"), "gitdir: ../gitdirs/mod\n");
    assert.ok(!existsSync(join(ws, "gitdirs", "mod", "hooks", "post-checkout")));
    assert.ok(!existsSync(join(ws, "later", ".git", "hooks", "pre-commit")));
    assert.match(seen("lib"), /^ok\n\[exit code 0\]$/);
    assert.match(seen("make"), /^made\n\[exit code 0\]$/);
  });

  test("the walk's bound: a workspace of exactly that many folders runs; one more and the next command is refused, nothing run", async () => {
    // The workspace, `many` and the folders in it (its `.git` is not walked, so not counted).
    // A PATH without git: no checkpoints, whose snapshots of so many folders are not tested here.
    const bin = { PATH: "" };
    const { w, b } = await sandboxWorld(
      (b) => {
        const many = join(b.workspace, "many");
        mkdirSync(many);
        for (let n = 0; n < GIT_WALK_FOLDERS - 2; n++) mkdirSync(join(many, `f${n}`));
        // Outside the box: a folder under /dev/shm is not seen inside (the sandbox's own /dev).
        bin.PATH = realpathSync(mkdtempSync("/var/tmp/mc-sandbox-bin-"));
        binFolders.push(bin.PATH);
        for (const name of ["bash", "bwrap", "mkdir"]) {
          const found = findOnPath(name, process.env);
          assert.ok(found, `${name} on PATH`);
          symlinkSync(found, join(bin.PATH, name));
        }
      },
      bin,
      // Where tens of thousands of folders are quick to make and remove: the memory file system
      // (on this project's machines a disk folder takes minutes to remove them).
      memoryFolder(),
    );
    const init = w.child.frames[0]?.result as { extensions: { turn: { checkpoints: unknown } } };
    assert.deepEqual(
      (init.extensions.turn.checkpoints as { available: boolean }).available,
      false,
      "no checkpoints without git",
    );
    const calls = [
      shellCall("echo ran > first.txt && mkdir many/one-more && echo grown", "at"),
      shellCall("echo ran > second.txt", "past"),
    ];
    w.server.reply(answer({ calls }), text("Done."));
    const run = await runApproving(w.child, "work", "sandboxed", []);
    assert.equal(run.result.status, "completed");
    assert.match(resultText(w.server.requests[1], "at"), /^grown\n\[exit code 0\]$/);
    assert.ok(existsSync(join(b.workspace, "first.txt")));
    const refused = resultText(w.server.requests[1], "past");
    assert.match(
      refused,
      /^The sandbox did not run the command: the workspace has more than 50000 folders/,
    );
    assert.match(refused, /"sandbox": false, which asks the user first/);
    assert.ok(!refused.includes(b.root), "no path in the message");
    assert.deepEqual(
      bodiesOf(run.events, "tool_done").map((d) => d.status),
      ["completed", "failed"],
    );
    assert.ok(!existsSync(join(b.workspace, "second.txt")), "nothing ran");
  });
});
