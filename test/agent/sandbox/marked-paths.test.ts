import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  HOME_MARK,
  MARKED_PATH_BYTES,
  markPlaces,
  mountOfIn,
  WORKSPACE_MARK,
} from "../../../src/agent/sandbox/marked-paths.js";

/**
 * The probe memo's key names the workspace and MC_HOME by marks where their mount can be told
 * (src/agent/sandbox/marked-paths.ts): on the same mount, held by the same mounts of the run,
 * with no mount at or below them, two workspaces are one key; anything else keeps the path.
 */

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
function folder(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mc-marked-")));
  roots.push(root);
  return root;
}

const TABLE = [
  "22 27 0:21 / /proc rw,relatime - proc proc rw",
  "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
  "31 27 0:30 / /srv/data rw,nosuid - tmpfs tmpfs rw",
  "32 27 0:31 / /srv/with\\040space/inner rw - tmpfs tmpfs rw",
  "",
].join("\n");

/** A bwrap-like run in `workspace`, MC_HOME hidden, /tmp a tmpfs. */
function runOf(workspace: string, home: string) {
  return {
    args: [
      "--ro-bind",
      "/",
      "/",
      "--tmpfs",
      "/tmp",
      "--bind",
      workspace,
      workspace,
      "--ro-bind",
      `${workspace}/.git`,
      `${workspace}/.git`,
      "--tmpfs",
      home,
      "--chdir",
      workspace,
    ],
    cwd: workspace,
  };
}

describe("the probe's places named by marks", { skip: process.platform !== "linux" }, () => {
  test("two workspaces and homes alike make the same runs, which name neither path", () => {
    const root = folder();
    const made = [1, 2].map((n) => {
      const workspace = join(root, `workspace-${n}`);
      const home = join(root, `home-${n}`);
      mkdirSync(workspace);
      mkdirSync(home);
      const places = [
        { mark: WORKSPACE_MARK, path: workspace },
        { mark: HOME_MARK, path: home },
      ];
      return { workspace, home, marked: markPlaces([runOf(workspace, home)], places) };
    });
    const [one, two] = made as [(typeof made)[0], (typeof made)[0]];
    assert.deepEqual(one.marked, two.marked);
    const text = JSON.stringify(one.marked);
    assert.ok(!text.includes(one.workspace) && !text.includes(one.home), text);
    assert.deepEqual(one.marked.runs[0]?.args.slice(6, 10), [
      WORKSPACE_MARK,
      WORKSPACE_MARK,
      "--ro-bind",
      `${WORKSPACE_MARK}/.git`,
    ]);
    assert.equal(one.marked.runs[0]?.cwd, WORKSPACE_MARK);
    assert.deepEqual(
      one.marked.marked.map((place) => place.mark),
      [WORKSPACE_MARK, HOME_MARK].sort((a, b) => b.length - a.length),
    );
    // Held by `/` and, under the temp folder, the run's --tmpfs /tmp when that is where it is.
    const under = one.marked.marked[0]?.under ?? [];
    assert.equal(under[0], "/");
    assert.equal(under.includes("/tmp"), one.workspace.startsWith("/tmp/"));
    assert.match(one.marked.marked[0]?.mount ?? "", /^\d+ \d+ \d+:\d+ /);
  });

  test("a workspace held by other mounts of the run is another key", () => {
    const root = folder();
    const workspace = join(root, "w");
    mkdirSync(workspace);
    const place = [{ mark: WORKSPACE_MARK, path: workspace }];
    const plain = markPlaces([runOf(workspace, "/nowhere")], place);
    const run = runOf(workspace, "/nowhere");
    run.args.unshift("--tmpfs", root);
    const held = markPlaces([run], place);
    assert.notDeepEqual(held.marked, plain.marked);
    assert.ok(held.marked[0]?.under.includes(root));
  });

  test("a place the runs do not name, or without a folder, is not marked", () => {
    const root = folder();
    const workspace = join(root, "w");
    mkdirSync(workspace);
    const marked = markPlaces(
      [runOf(workspace, "/elsewhere")],
      [
        { mark: WORKSPACE_MARK, path: workspace },
        { mark: HOME_MARK, path: null },
      ],
    );
    assert.deepEqual(
      marked.marked.map((place) => place.mark),
      [WORKSPACE_MARK],
    );
    assert.ok(marked.runs[0]?.args.includes("/elsewhere"));
  });

  test("a path that cannot be told keeps it: missing, or over the bound", () => {
    const missing = "/nonexistent-mc-marked/w";
    const run = runOf(missing, "/h");
    const out = markPlaces([run], [{ mark: WORKSPACE_MARK, path: missing }]);
    assert.deepEqual(out.marked, []);
    assert.deepEqual(out.runs[0], run);
    // At the bound a path is marked; one byte past it, named as it is.
    const root = folder();
    let deep = root;
    while (Buffer.byteLength(deep) + 101 <= MARKED_PATH_BYTES) {
      deep = join(deep, "d".repeat(100));
      mkdirSync(deep);
    }
    const atBound = join(deep, "x".repeat(MARKED_PATH_BYTES - Buffer.byteLength(deep) - 1));
    const pastBound = `${atBound}y`;
    mkdirSync(atBound);
    mkdirSync(pastBound);
    assert.equal(Buffer.byteLength(atBound), MARKED_PATH_BYTES);
    const mark = (path: string) =>
      markPlaces([runOf(path, "/h")], [{ mark: WORKSPACE_MARK, path }]).marked.length;
    assert.equal(mark(atBound), 1);
    assert.equal(mark(pastBound), 0);
  });

  test("a mount at or below the path keeps it; its own mount's line is found by ID", () => {
    assert.equal(mountOfIn(TABLE, 27, "/home/me/project"), TABLE.split("\n")[1]);
    assert.equal(mountOfIn(TABLE, 31, "/srv/data/project"), TABLE.split("\n")[2]);
    assert.equal(mountOfIn(TABLE, 22, "/proc/x"), TABLE.split("\n")[0]);
    // A mount below: /srv/data is a mount point under /srv.
    assert.equal(mountOfIn(TABLE, 27, "/srv"), null);
    // A mount exactly at it.
    assert.equal(mountOfIn(TABLE, 31, "/srv/data"), null);
    // An escaped mount point (a space in its path) below.
    assert.equal(mountOfIn(TABLE, 27, "/srv/with space"), null);
    // A sibling whose name starts alike is not below.
    assert.equal(mountOfIn(TABLE, 27, "/srv/dat"), TABLE.split("\n")[1]);
    // An ID the table does not have.
    assert.equal(mountOfIn(TABLE, 99, "/home/me"), null);
    assert.equal(mountOfIn(TABLE, 2, "/home/me"), null, "an ID is matched whole, not by prefix");
  });
});
