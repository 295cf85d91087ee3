import { spawn } from "node:child_process";
import { join } from "node:path";
import { CHILD_BIN, type Sandbox } from "../../src/conformance/harness.js";
import { LineSplitter } from "../../src/conformance/line-splitter.js";
import { KIT_KEY } from "../../src/conformance/turn-world.js";

type Frame = Record<string, unknown>;

/** `mc-agent acp` spoken to by hand: numbered requests, the notifications kept in order. */
export interface AcpProcess {
  request(id: number, method: string, params: object): Promise<Frame>;
  /** Every notification so far, in order. */
  notes: Frame[];
  close(): Promise<void>;
}

/** `mc-agent acp`'s environment in `box`: its home, and no codex or Claude login of the machine's. */
export function acpBoxEnv(box: Sandbox): Record<string, string> {
  return {
    HOME: box.root,
    MC_HOME: box.home,
    CODEX_HOME: join(box.root, "no-codex"),
    CLAUDE_CONFIG_DIR: join(box.root, "no-claude"),
  };
}

/**
 * The real `mc-agent acp` in `box`'s workspace (acpBoxEnv, and the key of the conformance
 * kit's provider), `env` over that (PATH, TMPDIR).
 */
export function startAcpProcess(box: Sandbox, env: Record<string, string>): AcpProcess {
  const agent = spawn(CHILD_BIN, ["acp"], {
    cwd: box.workspace,
    env: { ...acpBoxEnv(box), MC_KIT_KEY: KIT_KEY, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = new Map<number, (frame: Frame) => void>();
  const notes: Frame[] = [];
  const lines = new LineSplitter();
  agent.stdout.setEncoding("utf8");
  agent.stdout.on("data", (chunk: string) => {
    for (const line of lines.push(chunk)) {
      const frame = JSON.parse(line) as Frame;
      if ("method" in frame) notes.push(frame);
      else if (typeof frame.id === "number") waiting.get(frame.id)?.(frame);
    }
  });
  const exited = new Promise((resolve) => agent.on("exit", resolve));
  return {
    notes,
    request: (id, method, params) =>
      new Promise((resolve) => {
        waiting.set(id, resolve);
        agent.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      }),
    close: async () => {
      agent.stdin.end();
      await exited;
    },
  };
}
