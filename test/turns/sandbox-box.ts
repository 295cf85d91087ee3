/**
 * The box of the sandboxed-level tests: real folders under /var/tmp, not /tmp (the sandbox's
 * /tmp is a private empty one, so paths under the host's /tmp would be missing inside rather
 * than read-only), with the user's home and its Codex login beside the workspace.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxAvailability } from "../../src/agent/sandbox/index.js";
import type { Sandbox } from "../helpers/child.js";

export const CODEX_SECRET = "codex-refresh-token-do-not-leak";

export interface Box extends Sandbox {
  userHome: string;
}

export function varTmpBox(parent = "/var/tmp"): Box {
  const root = realpathSync(mkdtempSync(join(parent, "mc-sandbox-test-")));
  const box = {
    root,
    home: join(root, "mc-home"),
    workspace: join(root, "workspace"),
    userHome: join(root, "user-home"),
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }),
  };
  mkdirSync(box.home, { mode: 0o700 });
  mkdirSync(join(box.workspace, ".git"), { recursive: true });
  writeFileSync(join(box.workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(join(box.userHome, ".codex"), { recursive: true });
  writeFileSync(
    join(box.userHome, ".codex", "auth.json"),
    JSON.stringify({ tokens: { refresh_token: CODEX_SECRET } }),
  );
  return box;
}

/** The child's environment: HOME is the user's, Codex and Claude found at their defaults. */
export function userEnv(box: Box) {
  return { HOME: box.userHome, CODEX_HOME: undefined, CLAUDE_CONFIG_DIR: undefined };
}

/** Why this machine cannot run the tests, or null. */
export function skipReason(): string | null {
  if (process.platform !== "linux") return "bubblewrap runs on Linux only";
  const probeBox = varTmpBox();
  try {
    const found = sandboxAvailability(probeBox.workspace, probeBox.home, {
      ...process.env,
      HOME: probeBox.userHome,
    });
    return found.sandbox === "bubblewrap"
      ? null
      : `no bubblewrap sandbox starts here: ${found.reason}; ${found.fix} (${found.detail ?? "no detail"})`;
  } finally {
    probeBox.cleanup();
  }
}
