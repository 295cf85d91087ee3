import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHILD_BIN, type Sandbox } from "../../src/conformance/harness.js";
import { LineSplitter } from "../../src/conformance/line-splitter.js";
import { KIT_KEY } from "../../src/conformance/turn-world.js";
import { acpBoxEnv } from "../helpers/acp-process.js";

/**
 * `mc-agent acp` started with a preloaded script (`preload`, CommonJS source) that notes
 * something inside the agent as its answers are written, driven as an editor's start is: its
 * `initialize` (offering files, terminals and terminal authentication), then `session/new` once
 * that is answered. Resolves with `session/new`'s answer, the agent having exited. `env` is
 * added to the agent's (the preload's own variables). The world's TMPDIR is `<root>/tmp`.
 */
export async function sessionNewPreloaded(
  box: Sandbox,
  preload: string,
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const script = join(box.root, "preload.cjs");
  writeFileSync(script, preload);
  const agent = spawn(process.execPath, ["--require", script, CHILD_BIN, "acp"], {
    cwd: box.workspace,
    env: {
      PATH: process.env.PATH ?? "",
      ...acpBoxEnv(box),
      MC_KIT_KEY: KIT_KEY,
      TMPDIR: join(box.root, "tmp"),
      ...env,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => agent.on("exit", resolve));
  const lines = new LineSplitter();
  const request = (id: number, method: string, params: unknown) =>
    agent.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  const answered = new Promise<Record<string, unknown>>((resolve) => {
    agent.stdout.setEncoding("utf8");
    agent.stdout.on("data", (chunk: string) => {
      for (const line of lines.push(chunk)) {
        const frame = JSON.parse(line) as Record<string, unknown>;
        if (frame.id === 0) request(1, "session/new", { cwd: box.workspace, mcpServers: [] });
        if (frame.id === 1) resolve(frame);
      }
    });
  });
  request(0, "initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true }, terminal: true, auth: { terminal: true } },
    clientInfo: { name: "preloaded-agent", version: "1" },
  });
  const answer = await answered;
  agent.stdin.end();
  await exited;
  assert.ok(answer.result, JSON.stringify(answer));
  return answer;
}
