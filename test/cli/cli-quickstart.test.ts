import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type ChatServer, startChatServer, text } from "../fixtures/chat-completions-server.js";
import { PACKAGE_ROOT, type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * The README's local-server quick start, run as written against a loopback stand-in for the
 * server (GET /v1/models as Ollama, llama.cpp, LM Studio and vLLM answer it, and streamed Chat
 * Completions). Two changes only: the base URL points at the stand-in, and models.dev
 * enrichment at the stand-in too, so that no test reaches the network.
 */
const README = readFileSync(join(PACKAGE_ROOT, "README.md"), "utf8");

function blockAfter(marker: string): string {
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README has ${marker}`);
  const match = /```\w*\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(match?.[1], `a code block follows ${marker}`);
  return match[1];
}

describe("README quick start against a loopback local server", () => {
  let box: Sandbox;
  let server: ChatServer;
  let env: Record<string, string | undefined>;
  beforeEach(async () => {
    box = sandbox("mc-cli-quickstart-");
    server = await startChatServer();
    // Like Ollama: the models it has, then a streamed reply to every chat.
    server.otherwise(async (exchange) => {
      if (exchange.request.url.endsWith("/v1/models")) {
        exchange.res.writeHead(200, { "content-type": "application/json" });
        exchange.res.end(
          JSON.stringify({
            object: "list",
            data: ["qwen2.5-coder:latest", "llama3.2:3b"].map((id) => ({ id, object: "model" })),
          }),
        );
        return;
      }
      if (exchange.request.method === "GET") {
        exchange.res.writeHead(404).end();
        return;
      }
      await text("Hello from the local server.")(exchange);
    });
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home };
  });
  afterEach(async () => {
    await server.close();
    box.cleanup();
  });
  const run = (args: string[]) => runCli(args, { cwd: box.workspace, env });

  it("the setup steps, as written: setup (the server given with --server), then a turn", async () => {
    // The one setting that keeps the test off the network: models.dev enrichment.
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ models_dev_url: `${server.baseUrl}/models-dev.json` }),
    );
    const steps = blockAfter("<!-- setup-steps")
      .split("\n")
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter((line) => line.startsWith("mc-agent "))
      .map((line) => line.split(/\s+/).slice(1));
    assert.deepEqual(steps, [["setup"], ["chat"]]);
    // The server is not on a default port here: --server names it. Enter takes the default model.
    const setup = await runCli([...(steps[0] ?? []), "--server", server.baseUrl], {
      cwd: box.workspace,
      env,
      input: "\n",
    });
    assert.equal(setup.code, 0, setup.stderr);
    assert.match(setup.stdout, /Next: mc-agent chat/);
    const turn = await run(["exec", "Say hello"]);
    assert.equal(turn.code, 0, turn.stderr);
    assert.equal(turn.stdout.trim(), "Hello from the local server.");
  });

  it("the config and the steps, as written: refresh, models, enable --default, then a turn", async () => {
    const config = JSON.parse(blockAfter("<!-- quickstart-config")) as {
      providers: Record<string, { type: string; base_url: string; api_key_env?: string }>;
    };
    const [name, provider] = Object.entries(config.providers)[0] ?? [];
    assert.ok(name && provider);
    assert.equal(provider.type, "openai-compatible");
    assert.equal(provider.api_key_env, undefined, "keyless");
    provider.base_url = server.baseUrl;
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ ...config, models_dev_url: `${server.baseUrl}/models-dev.json` }, null, 2),
    );
    const steps = blockAfter("<!-- quickstart-steps")
      .split("\n")
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter((line) => line.startsWith("mc-agent "))
      .map((line) => line.split(/\s+/).slice(1));
    assert.deepEqual(
      steps.map((s) => s[0]),
      ["refresh", "models", "models", "chat"],
    );
    for (const step of steps.slice(0, 3)) {
      const r = await run(step);
      assert.equal(r.code, 0, `mc-agent ${step.join(" ")}: ${r.stderr}`);
      if (step[0] === "models" && step.length === 1)
        assert.match(r.stdout, /\[ \] ollama\/qwen2\.5-coder:latest\n/);
    }
    // The last step is an interactive chat: one turn through exec stands in for it here.
    const turn = await run(["exec", "Say hello"]);
    assert.equal(turn.code, 0, turn.stderr);
    assert.equal(turn.stdout.trim(), "Hello from the local server.");
    const chat = server.requests.find((r) => r.method === "POST");
    assert.ok(chat, "a chat request reached the server");
    assert.equal((chat.body as { model?: string }).model, "qwen2.5-coder:latest");
    assert.equal(chat.headers.authorization, undefined, "no key is sent");
  });

  it("every server of the table: a keyless provider at its base URL refreshes and lists", async () => {
    const rows = [
      ...README.matchAll(
        /^\| (Ollama|llama\.cpp|LM Studio|vLLM) +\|.+\| `(http:\/\/[^`]+)` +\|$/gm,
      ),
    ];
    assert.deepEqual(
      rows.map((r) => r[1]),
      ["Ollama", "llama.cpp", "LM Studio", "vLLM"],
    );
    const names = ["ollama", "llamacpp", "lmstudio", "vllm"];
    for (const row of rows) assert.match(row[2] ?? "", /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({
        providers: Object.fromEntries(
          names.map((n) => [n, { type: "openai-compatible", base_url: server.baseUrl }]),
        ),
        models_dev_url: `${server.baseUrl}/models-dev.json`,
      }),
    );
    for (const n of names) {
      const r = await run(["refresh", n]);
      assert.equal(r.code, 0, `${n}: ${r.stderr}`);
    }
    const listed = await run(["models"]);
    for (const n of names)
      assert.match(listed.stdout, new RegExp(`\\n {2}${n} {2}2 cached, 0 enabled\\n`));
  });
});
