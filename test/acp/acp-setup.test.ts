import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { RequestError } from "@agentclientprotocol/sdk";
import { serveLikeOllama } from "../cli/setup-world.js";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN, PACKAGE_ROOT, type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { loadRecordings, streamsDir, wireOf } from "../turns/recorded-streams.js";
import { AcpWorld } from "./acp-world.js";

/**
 * From nothing to an answer in an editor (issue 38): `mc-agent setup` run as ACP's terminal
 * authentication, and `setup --yes` then `mc-agent acp` from an empty MC_HOME with only a key,
 * or with only a local server. The providers are loopback stand-ins; models.dev enrichment
 * points at them too, the one setting the "empty" MC_HOME holds, so nothing reaches the network.
 */

/** The environment the editor starts the agent with, as AcpWorld gives it (and `extra`). */
function agentEnv(box: Sandbox, extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH,
    HOME: box.home,
    MC_HOME: box.home,
    CODEX_HOME: join(box.home, "no-codex"),
    CLAUDE_CONFIG_DIR: join(box.home, "no-claude"),
    ...extra,
  };
}

/**
 * What an editor does for a terminal auth method: runs its configured agent command (here the
 * launcher, as `"command": "mc-agent"` would) with the method's `args` appended and its `env`
 * over the launch environment, the user answering in the terminal (here: Enter, the defaults).
 */
function runTerminalAuth(
  box: Sandbox,
  launch: Record<string, string | undefined>,
  method: { args?: string[]; env?: Record<string, string> },
  answers: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const proc = spawn(CHILD_BIN, ["acp", ...(method.args ?? [])], {
      cwd: box.workspace,
      env: { ...launch, ...method.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    proc.stdout.setEncoding("utf8").on("data", (t: string) => {
      output += t;
    });
    proc.stderr.setEncoding("utf8").on("data", (t: string) => {
      output += t;
    });
    proc.stdin.end(answers);
    proc.on("close", (code) => resolve({ code, output }));
  });
}

async function completedTurn(world: AcpWorld, text: string): Promise<void> {
  await world.initialize();
  const { sessionId } = await world.newSession();
  const answer = await world.prompt(sessionId, "Say hello");
  assert.equal(answer.stopReason, "end_turn", world.stderr);
  assert.equal(world.agentText().trim(), text.trim());
}

describe("acp setup: from nothing to an answer in the editor", () => {
  // A test that fails before its agent starts (which closes them) still closes its server.
  const servers: ChatServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  const loopback = async () => {
    const server = await startChatServer();
    servers.push(server);
    return server;
  };
  it("the terminal auth method runs setup; the next session answers", async () => {
    const box = sandbox("mc-acp-setup-");
    const server = await loopback();
    serveLikeOllama(server);
    // A provider with its key, nothing fetched or chosen yet.
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({
        providers: {
          kit: { type: "openai-compatible", base_url: server.baseUrl, api_key_env: "MC_KIT_KEY" },
        },
        models_dev_url: `${server.baseUrl}/models-dev.json`,
      }),
    );
    const world = await AcpWorld.start({ box, server });
    try {
      const init = await world.initialize({
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
        auth: { terminal: true },
      });
      const method = init.authMethods?.[0] as
        | { type?: string; id: string; args?: string[]; env?: Record<string, string> }
        | undefined;
      assert.equal(method?.type, "terminal");
      assert.deepEqual(method?.args, ["--setup"]);
      const first = await world.newSession();
      await assert.rejects(world.prompt(first.sessionId, "Hello"), (error: RequestError) => {
        assert.match(error.message, /^No model is set up yet\. Run "MC_HOME=.* mc-agent setup"/);
        return true;
      });
      // The terminal method is not for `authenticate` (ACP: the client must not send it).
      await assert.rejects(world.agent.request("authenticate", { methodId: method?.id ?? "" }));

      const { KIT_KEY } = await import("../../src/conformance/turn-world.js");
      const ran = await runTerminalAuth(
        box,
        agentEnv(box, { MC_KIT_KEY: KIT_KEY }),
        method ?? {},
        "\n\n",
      );
      assert.equal(ran.code, 0, ran.output);
      const written = JSON.parse(readFileSync(join(box.home, "config.json"), "utf8"));
      assert.equal(written.model, "kit/qwen2.5-coder:latest");

      const { sessionId } = await world.newSession();
      const answer = await world.prompt(sessionId, "Say hello");
      assert.equal(answer.stopReason, "end_turn", world.stderr);
      assert.match(world.agentText(), /Hello from the loopback provider\./);
    } finally {
      await world.close();
    }
  });

  it("only a key variable: setup --yes, then mc-agent acp completes a turn", async (t) => {
    const dir = streamsDir();
    if (!dir) return t.skip("../shared/provider-streams is not beside the package");
    const call = loadRecordings(dir).find((r) => r.entry.file.endsWith("azure-text.1.chunks.txt"))
      ?.calls[0];
    assert.ok(call, "the recording is there");
    const expected = call.meaning.messages.map((m) => m.text).join("");
    const box = sandbox("mc-acp-setup-");
    const server = await loopback();
    server.otherwise(async (exchange) => {
      if (exchange.request.url.endsWith("/v1/models")) {
        exchange.res.writeHead(200, { "content-type": "application/json" });
        exchange.res.end(JSON.stringify({ object: "list", data: [{ id: "gpt-5.1" }] }));
        return;
      }
      if (exchange.request.method !== "POST") return void exchange.res.writeHead(404).end();
      exchange.res.writeHead(200, { "content-type": "text/event-stream" });
      exchange.res.end(wireOf("responses", call, "\n"));
    });
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ models_dev_url: `${server.baseUrl}/m.json` }),
    );
    const key = { OPENAI_API_KEY: "sk-acp-e2e" };
    const setup = await runCli(["setup", "--yes", "--base-url", server.baseUrl], {
      cwd: box.workspace,
      env: agentEnv(box, key),
      timeoutMs: 30_000,
    });
    assert.equal(setup.code, 0, setup.stderr);
    // The README's editor steps as written: setup first, then the entry's command and args.
    const readme = readFileSync(join(PACKAGE_ROOT, "README.md"), "utf8");
    const editors = readme.slice(readme.indexOf("## Editors: `mc-agent acp`"));
    assert.match(editors, /Run `mc-agent setup` first/);
    const entry = JSON.parse(/```json\n([\s\S]*?)```/.exec(editors)?.[1] ?? "{}");
    assert.deepEqual(entry.agent_servers["mc-agent"].command, "mc-agent");
    assert.deepEqual(entry.agent_servers["mc-agent"].args, ["acp"], "what AcpWorld runs");
    const world = await AcpWorld.start({ box, server, env: key });
    try {
      await completedTurn(world, expected);
      const sent = server.requests.find((q) => q.method === "POST");
      assert.match(sent?.url ?? "", /\/v1\/responses$/);
      assert.equal(sent?.headers.authorization, "Bearer sk-acp-e2e");
    } finally {
      await world.close();
    }
  });

  it('only a local "Ollama", no key: setup --yes --server, then mc-agent acp completes a turn', async () => {
    const box = sandbox("mc-acp-setup-");
    const server = await loopback();
    serveLikeOllama(server);
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ models_dev_url: `${server.baseUrl}/m.json` }),
    );
    const setup = await runCli(["setup", "--yes", "--server", server.baseUrl], {
      cwd: box.workspace,
      env: agentEnv(box),
      timeoutMs: 30_000,
    });
    assert.equal(setup.code, 0, setup.stderr);
    const world = await AcpWorld.start({ box, server });
    try {
      await completedTurn(world, "Hello from the loopback provider.");
      const sent = server.requests.find((q) => q.method === "POST");
      assert.equal(sent?.headers.authorization, undefined, "a keyless server gets no key");
    } finally {
      await world.close();
    }
  });
});
