import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildOptions, Sandbox } from "./child.js";
import { PACKAGE_ROOT } from "./child.js";

/**
 * Permission tests need a child that mode bits bind. Root ignores them, so as root the child
 * runs as `nobody` (uid and gid 65534, no supplementary groups) through `setpriv`, over a sandbox
 * chowned to it. `nobody` must also reach the child's own files, and a checkout under a private
 * folder (`mktemp -d` makes 0700; `/root` is 0700 in most containers) is out of its reach. So the
 * built child runs from a copy in a world-readable temp folder, made once per test process, and
 * a probe run as `nobody` proves the copy and the sandbox reachable before the test relies on
 * them; where it cannot, the test is skipped with the probe's reason instead of failing on
 * "Cannot find module".
 */
export const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

export type UnprivilegedChild = { options: Partial<ChildOptions> } | { skip: string };

/** How to start a child that permissions bind in `box`, or why that is impossible here. */
export function unprivilegedChild(box: Sandbox): UnprivilegedChild {
  if (!isRoot) return { options: {} };
  chownTree(box.root, false);
  chownTree(box.home, true);
  chownTree(box.workspace, true);
  const bin = join(childCopy(), "bin", "mc-agent.js");
  const asNobody = [
    "setpriv",
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    "--clear-groups",
    process.execPath,
  ];
  const problem = probe(asNobody, [bin, box.home, box.workspace]);
  if (problem) return { skip: `cannot run the child as uid ${NOBODY}: ${problem}` };
  return { options: { command: [...asNobody, bin, "stdio"] } };
}

function chownTree(path: string, recursive: boolean): void {
  lchownSync(path, NOBODY, NOBODY);
  if (recursive && lstatSync(path).isDirectory())
    for (const name of readdirSync(path)) chownTree(join(path, name), true);
}

/** Runs node as `nobody` and checks that it can read every path; the failure, or null. */
function probe(asNobody: string[], paths: string[]): string | null {
  const [command, ...args] = asNobody as [string, ...string[]];
  const check =
    "const fs = require('node:fs');" +
    "for (const p of process.argv.slice(1)) fs.accessSync(p, fs.constants.R_OK);";
  const run = spawnSync(command, [...args, "-e", check, ...paths], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (run.error) return run.error.message;
  if (run.status === 0) return null;
  const lines = run.stderr.trim().split("\n");
  return (
    lines.find((line) => line.includes("Error")) ??
    lines[0] ??
    `status ${run.status}`
  ).trim();
}

let copied: string | undefined;

/**
 * The built child, copied to a world-readable folder removed when the test process exits: bin
 * (CommonJS by its own package.json), the CLI's entry (dist/src/main.js), the bundle
 * (dist/child: the process entry, the child and its record worker), the bundle's one external
 * module (undici: scripts/bundle.js) and a package.json that makes the `.js` files ES modules.
 */
function childCopy(): string {
  if (copied) return copied;
  const dir = mkdtempSync(join(tmpdir(), "mc-child-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "bin"));
  // The bin and the package.json that makes it CommonJS.
  cpSync(join(PACKAGE_ROOT, "bin"), join(dir, "bin"), { recursive: true });
  cpSync(join(PACKAGE_ROOT, "dist", "child"), join(dir, "dist", "child"), { recursive: true });
  // The CLI's entry, which dist/child/entry.cjs imports for anything but the two backends.
  mkdirSync(join(dir, "dist", "src"), { recursive: true });
  cpSync(join(PACKAGE_ROOT, "dist", "src", "main.js"), join(dir, "dist", "src", "main.js"));
  const undici = join("node_modules", "undici");
  cpSync(join(PACKAGE_ROOT, undici), join(dir, undici), { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  openToAll(dir);
  copied = dir;
  return dir;
}

/** Folders 0755, files 0644, whatever the umask of the checkout was. */
function openToAll(path: string): void {
  if (lstatSync(path).isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) openToAll(join(path, name));
  } else chmodSync(path, 0o644);
}
