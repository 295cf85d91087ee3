/**
 * A turn world under /var/tmp with a user home of its own, for tests that need the `sandboxed`
 * level (the real bubblewrap): the sandbox's /tmp is private, so the box cannot live under the
 * host's /tmp. Skipped, with the reason, where no bubblewrap starts.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxAvailability } from "../../src/agent/sandbox/index.js";
import type { Sandbox } from "../helpers/child.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

export interface UserBox extends Sandbox {
  userHome: string;
}

export function userBox(): UserBox {
  const root = realpathSync(mkdtempSync("/var/tmp/mc-rules-test-"));
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
  mkdirSync(box.userHome, { recursive: true });
  return box;
}

/** Why the sandboxed level cannot run here, or null. */
export function sandboxSkipReason(): string | null {
  if (process.platform !== "linux") return "bubblewrap runs on Linux only";
  const probe = userBox();
  try {
    const found = sandboxAvailability(probe.workspace, probe.home, {
      ...process.env,
      HOME: probe.userHome,
    });
    return found.sandbox === "bubblewrap"
      ? null
      : `no bubblewrap sandbox starts here: ${found.reason}`;
  } finally {
    probe.cleanup();
  }
}

/** A started world on a fresh user box, its session created; close both when done. */
export async function userBoxWorld(): Promise<{ world: TurnWorld; box: UserBox }> {
  const box = userBox();
  const world = await turnWorld({
    box,
    child: { env: { HOME: box.userHome, CODEX_HOME: undefined, CLAUDE_CONFIG_DIR: undefined } },
  });
  const init = world.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
  assert.equal(init.extensions.turn.sandbox, "bubblewrap", "the child found bubblewrap");
  await world.child.call("session.create", {});
  return { world, box };
}
