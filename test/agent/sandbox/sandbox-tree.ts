/** Real folder trees for the sandbox tests, under /var/tmp (outside the sandbox's private /tmp). */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

let roots: string[] = [];

export function cleanTrees(): void {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
}

/** A real folder tree under /var/tmp (outside the sandbox's private /tmp). */
export function tree() {
  const root = realpathSync(mkdtempSync("/var/tmp/mc-sandbox-unit-"));
  roots.push(root);
  const workspace = join(root, "ws");
  const home = join(root, "mc-home");
  const user = join(root, "user");
  mkdirSync(join(workspace, ".git"), { recursive: true });
  mkdirSync(home);
  mkdirSync(join(user, ".codex"), { recursive: true });
  writeFileSync(join(user, ".codex", "auth.json"), "{}");
  return { root, workspace, home, user };
}
