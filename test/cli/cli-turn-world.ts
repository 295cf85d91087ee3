import { afterEach, beforeEach } from "node:test";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { PtyRun, shellQuote } from "../helpers/pty.js";
import { writeTurnHome } from "../helpers/turn-home.js";

/** What each exec or chat test runs against; fresh for every test. */
export interface CliTurnWorld {
  box: Sandbox;
  server: ChatServer;
  /** The environment the CLI runs with (a test may replace it, e.g. for a store with no model). */
  env: Record<string, string | undefined>;
  /** Runs `mc-agent <args>` at a real pty in the workspace (killed after the test). */
  pty(...args: string[]): PtyRun;
  /** Runs `close` after the test (before the world's own teardown). */
  closeAfter(close: () => void): void;
}

/**
 * Registers, in the calling `describe`, a sandbox with a loopback Chat Completions server as
 * the `demo` provider (writeTurnHome) before each test, and its teardown after.
 */
export function cliTurnWorld(prefix: string): CliTurnWorld {
  const closers: (() => void)[] = [];
  const world = {
    pty(...args: string[]) {
      const line = `exec ${[process.execPath, CHILD_BIN, ...args].map(shellQuote).join(" ")}`;
      const p = new PtyRun(line, {
        cwd: world.box.workspace,
        env: { ...world.env, NO_COLOR: "1" },
      });
      closers.push(() => p.kill());
      return p;
    },
    closeAfter(close: () => void) {
      closers.push(close);
    },
  } as CliTurnWorld;
  beforeEach(async () => {
    world.box = sandbox(prefix);
    world.server = await startChatServer();
    world.env = writeTurnHome(world.box, world.server.baseUrl);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await world.server.close();
    world.box.cleanup();
  });
  return world;
}
