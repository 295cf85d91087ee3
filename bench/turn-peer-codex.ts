import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Frame } from "../src/conformance/frame.js";
import { nextId, type Sandbox, sandbox, TestChild } from "../src/conformance/harness.js";
import type { WireFormat } from "./turn-formats.js";
import type { BenchServer } from "./turn-server.js";
import type { Streamer } from "./turn-world.js";

/**
 * The peer a user would pick instead of our child: Codex app-server (`codex app-server`), spoken
 * to over stdio in its own JSON-RPC (one message a line, no "jsonrpc" member), as its
 * generated protocol (`codex app-server generate-ts`, v2) defines it: `initialize` then the
 * `initialized` notification, `thread/start`, and per reply a `turn/start` whose
 * `item/agentMessage/delta` notifications carry the text until `turn/completed`.
 *
 * It runs on a temp CODEX_HOME whose config.toml points a custom model provider at the bench
 * server's Responses endpoint, with retries off and everything that would reach the network or
 * slow its start switched off (analytics, feedback, OpenTelemetry, update check, web search,
 * apps, plugins, image generation, shell snapshots; no MCP servers configured). The process gets
 * the same clean environment as our child (the harness passes only PATH and HOME), so no
 * NODE_EXTRA_CA_CERTS.
 */
export const CODEX_KEY_ENV = "MC_BENCH_CODEX_KEY";

export function codexConfig(
  format: WireFormat,
  server: Pick<BenchServer, "url">,
  extra = "",
): string {
  return `# Written by the mc-agent benchmarks; the model is the bench's loopback server.
${extra}model = "${format.model}"
model_provider = "bench"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.bench]
name = "bench"
base_url = "${format.baseUrl(server.url)}"
env_key = "${CODEX_KEY_ENV}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[features]
apps = false
plugins = false
remote_plugin = false
tool_suggest = false
image_generation = false
shell_snapshot = false
browser_use = false
computer_use = false
`;
}

interface Notification {
  method?: string;
  params?: Record<string, unknown>;
}

/**
 * A Codex app-server on a fresh thread whose model is `format`'s (the Responses format: the
 * only wire API Codex speaks), served by `server`. `startupMs` is spawn to the thread started.
 * Given `home`, a sandbox used before (a warm CODEX_HOME), it is kept at close.
 */
export async function codexStreamer(
  binary: string,
  format: WireFormat,
  server: BenchServer,
  home?: Sandbox,
  /** More top-level config.toml keys (e.g. `model_auto_compact_token_limit = 20000`). */
  extraConfig = "",
): Promise<Streamer & { startupMs: number; threadId: string; codexHome: string }> {
  const box = home ?? sandbox("mc-bench-codex-");
  const codexHome = join(box.home, "codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), codexConfig(format, server, extraConfig));
  const spawnedAt = performance.now();
  // --strict-config: a key this version does not know fails the start instead of being ignored.
  const proc = new TestChild({
    cwd: box.workspace,
    home: box.home,
    command: [binary, "app-server", "--strict-config"],
    env: { CODEX_HOME: codexHome, [CODEX_KEY_ENV]: "sk-bench" },
  });
  const close = async () => {
    // The app-server ends when its stdin closes; kill it if it lingers.
    proc.closeStdin();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(timer);
    if (!home) box.cleanup();
  };
  try {
    await call(proc, "initialize", {
      clientInfo: { name: "mc-agent-bench", title: null, version: "1.0.0" },
      capabilities: null,
    });
    proc.send({ method: "initialized" });
    const started = await call(proc, "thread/start", { cwd: box.workspace });
    const threadId = (started.thread as { id: string }).id;
    const startupMs = performance.now() - spawnedAt;
    return {
      label: "codex",
      proc,
      startupMs,
      threadId,
      codexHome,
      deltaOf: (frame) => {
        const f = frame as unknown as Notification;
        return f.method === "item/agentMessage/delta" ? ((f.params?.delta as string) ?? "") : "";
      },
      begin: () => turn(proc, threadId),
      forget: () => {
        proc.frames.length = 0;
        proc.rawLines.length = 0;
        proc.transcript.length = 0;
        proc.sent.length = 0;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** One request, its result; an error response fails with the server's own message. */
async function call(
  proc: TestChild,
  method: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const frame = await proc.request(method, params, nextId("codex"), 60_000);
  if (!frame.result) throw new Error(`codex ${method} failed: ${JSON.stringify(frame.error)}`);
  return frame.result;
}

/** Starts one turn with a user message; resolves once Codex reports it completed. */
async function turn(proc: TestChild, threadId: string): Promise<void> {
  const completed = proc.waitFor((f: Frame) => {
    const n = f as unknown as Notification;
    return n.method === "turn/completed" && n.params?.threadId === threadId;
  }, 120_000);
  await call(proc, "turn/start", {
    threadId,
    input: [{ type: "text", text: "Go on.", text_elements: [] }],
  });
  const done = (await completed) as unknown as Notification;
  const status = (done.params?.turn as { status?: string; error?: unknown } | undefined) ?? {};
  if (status.status !== "completed")
    throw new Error(`the Codex turn did not complete: ${JSON.stringify(status)}`);
}
