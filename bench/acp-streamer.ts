import { performance } from "node:perf_hooks";
import { CHILD_BIN, type Sandbox, TestChild } from "../src/conformance/harness.js";
import type { WireFormat } from "./turn-formats.js";
import type { Streamer } from "./turn-world.js";

let counter = 0;

/**
 * `mc-agent acp` as a streamer of the turn benchmarks: spawned on a sandbox the stdio child's
 * streamer set up (same store, same model), spoken to in raw JSON-RPC lines by the same
 * TestChild reader, so the bench process's reading costs both sides alike. A reply is one
 * session/prompt; its text arrives as agent_message_chunk updates.
 */
export async function acpStreamer(
  format: WireFormat,
  box: Sandbox,
  options: { mode?: string } = {},
): Promise<Streamer & { startupMs: number }> {
  const spawnedAt = performance.now();
  const proc = new TestChild({
    cwd: box.workspace,
    home: box.home,
    env: format.keyEnv,
    command: [process.execPath, CHILD_BIN, "acp"],
  });
  const call = async (method: string, params: object) => {
    counter += 1;
    const id = `acp${counter}`;
    const answer = proc.waitFor((f) => f.id === id, 120_000);
    proc.send({ jsonrpc: "2.0", id, method, params });
    const frame = (await answer) as { result?: Record<string, unknown>; error?: unknown };
    if (!frame.result) throw new Error(`${method} failed: ${JSON.stringify(frame.error)}`);
    return frame.result;
  };
  await call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const session = await call("session/new", { cwd: box.workspace, mcpServers: [] });
  const sessionId = session.sessionId as string;
  // Spawn to a session ready for a prompt (initialize in between).
  const startupMs = performance.now() - spawnedAt;
  // A mode of ACP's (docs/acp.md), e.g. full_access for turns that run commands unasked.
  if (options.mode) await call("session/set_mode", { sessionId, modeId: options.mode });
  return {
    label: "child",
    proc,
    startupMs,
    deltaOf: (frame) => {
      const f = frame as unknown as {
        method?: string;
        params?: { update: { sessionUpdate: string; content?: { text?: string } } };
      };
      return f.method === "session/update" &&
        f.params?.update.sessionUpdate === "agent_message_chunk"
        ? (f.params.update.content?.text ?? "")
        : "";
    },
    begin: async () => {
      const result = await call("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Go on." }],
      });
      if (result.stopReason !== "end_turn")
        throw new Error(`the prompt did not end its turn: ${JSON.stringify(result)}`);
    },
    forget: () => {
      proc.frames.length = 0;
      proc.rawLines.length = 0;
      proc.transcript.length = 0;
      proc.sent.length = 0;
    },
    close: async () => {
      proc.closeStdin();
      await proc.exited;
    },
  };
}
