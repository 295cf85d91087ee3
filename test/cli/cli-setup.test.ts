import assert from "node:assert/strict";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, afterEach, beforeEach, describe, it } from "node:test";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import { PACKAGE_ROOT, type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { loadRecordings, streamsDir, wireOf } from "../turns/recorded-streams.js";
import { serveLikeOllama } from "./setup-world.js";

/**
 * `mc-agent setup` as a process, against a loopback server posing as the provider: OpenAI's
 * GET /v1/models (which Ollama, llama.cpp, LM Studio and vLLM answer the same way) and streamed
 * Chat Completions. models.dev enrichment points at the stand-in too, so no test reaches the
 * network: that one setting is the only thing in the "empty" MC_HOME.
 */
describe("mc-agent setup", () => {
  let box: Sandbox;
  let server: ChatServer;
  let configPath: string;
  // Every server a hook started: a loaded run once left one listening after the last test (the
  // file's process then never ended), so the file closes whatever is still open at its end.
  const started: ChatServer[] = [];
  after(async () => {
    await Promise.all(started.map((s) => s.close()));
  });
  beforeEach(async () => {
    box = sandbox("mc-cli-setup-");
    server = await startChatServer();
    started.push(server);
    serveLikeOllama(server);
    configPath = join(box.home, "config.json");
  });
  afterEach(async () => {
    await server.close();
    box.cleanup();
  });
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH,
    HOME: box.home,
    MC_HOME: box.home,
    ...extra,
  });
  const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
    runCli(args, {
      cwd: box.workspace,
      env: env(extra),
      ...(input === undefined ? {} : { input }),
      timeoutMs: 30_000,
    });

  it("--yes with a key found: the provider's catalog, its first model, everything else kept", async () => {
    const before = {
      // A built-in pointed at the stand-in, and settings setup must not touch.
      providers: { openai: { base_url: server.baseUrl } },
      models_dev_url: `${server.baseUrl}/models-dev.json`,
      effort: "high",
      sandbox: { network: false },
      mcp_servers: {},
    };
    writeFileSync(configPath, `${JSON.stringify(before, null, 4)}\n`);
    const r = await run(["setup", "--yes"], { OPENAI_API_KEY: "sk-setup-test" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /openai +key in OPENAI_API_KEY/);
    assert.match(r.stdout, /Model: openai\/qwen2\.5-coder:latest/);
    assert.match(r.stdout, /Next: mc-agent chat/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes("sk-setup-test"), "the key is never shown");
    const after = JSON.parse(readFileSync(configPath, "utf8"));
    assert.deepEqual(after, {
      ...before,
      enabled_models: ["openai/qwen2.5-coder:latest"],
      model: "openai/qwen2.5-coder:latest",
    });
    // Edited in place: the file's own indentation is kept.
    assert.match(readFileSync(configPath, "utf8"), /^ {4}"effort": "high",$/m);
    const listing = server.requests.find((q) => q.url.endsWith("/v1/models"));
    assert.equal(listing?.headers.authorization, "Bearer sk-setup-test");
  });

  it("--server: a local server found, a model picked by number, the provider written", async () => {
    const before = `{\n  "models_dev_url": "${server.baseUrl}/models-dev.json",\n  "effort": "low"\n}\n`;
    writeFileSync(configPath, before);
    // The only candidate needs no question; the answer on stdin, "2", is the second model.
    const r = await run(["setup", "--server", server.baseUrl], {}, "2\n");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`local +server at ${server.baseUrl} \\(2 models, no key\\)`));
    assert.match(r.stdout, /\* {2}1 {2}qwen2\.5-coder:latest\n {3}2 {2}llama3\.2:3b\n/);
    const after = JSON.parse(readFileSync(configPath, "utf8"));
    assert.deepEqual(after, {
      models_dev_url: `${server.baseUrl}/models-dev.json`,
      effort: "low",
      providers: { local: { type: "openai-compatible", base_url: server.baseUrl } },
      enabled_models: ["local/llama3.2:3b"],
      model: "local/llama3.2:3b",
    });
    // The staged refresh's cache is MC_HOME's now: the model is selectable at once.
    const models = await run(["models"]);
    assert.equal(models.code, 0, models.stderr);
    assert.match(models.stdout, /\[x\] local\/llama3\.2:3b/);
  });

  it("--provider and --model answer for a script; an unknown model changes nothing", async () => {
    const before = `{"models_dev_url": "${server.baseUrl}/models-dev.json"}`;
    writeFileSync(configPath, before);
    const wrong = await run(["setup", "--server", server.baseUrl, "--model", "nope"]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /does not list "nope" \(2 models\) \(model_unavailable\)/);
    assert.equal(readFileSync(configPath, "utf8"), before);
    assert.ok(!existsSync(join(box.home, "cache", "models", "local.json")), "no cache adopted");
    const right = await run([
      "setup",
      "--server",
      server.baseUrl,
      "--provider",
      "local",
      "--model",
      "llama3.2:3b",
    ]);
    assert.equal(right.code, 0, right.stderr);
    assert.equal(JSON.parse(readFileSync(configPath, "utf8")).model, "local/llama3.2:3b");
  });

  it("questions on a stdin that ends: a usage error pointing to --yes, the file unchanged", async () => {
    const before = `{"models_dev_url": "${server.baseUrl}/models-dev.json"}`;
    writeFileSync(configPath, before);
    const r = await run(["setup", "--server", server.baseUrl], {}, "");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /pass --yes/);
    assert.equal(readFileSync(configPath, "utf8"), before);
  });

  it("nothing found: says what to do, writes nothing", async () => {
    const closed = await startChatServer();
    const url = closed.baseUrl;
    await closed.close();
    const r = await run(["setup", "--yes", "--server", url]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\(nothing_found\)\. Export a provider's key/);
    assert.ok(!existsSync(configPath));
  });

  it("an invalid config.json is never edited: doctor is named", async () => {
    writeFileSync(configPath, '{"model": 3}');
    const r = await run(["setup", "--yes", "--server", server.baseUrl]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\(configuration_invalid\)\. "mc-agent doctor"/);
    assert.equal(readFileSync(configPath, "utf8"), '{"model": 3}');
  });

  it("end to end: only a key variable, setup --yes, then a completed exec turn", async (t) => {
    const dir = streamsDir();
    if (!dir) return t.skip("../shared/provider-streams is not beside the package");
    // OpenAI's own wire: a text answer recorded from the Responses API.
    const recording = loadRecordings(dir).find((r) =>
      r.entry.file.endsWith("azure-text.1.chunks.txt"),
    );
    const call = recording?.calls[0];
    assert.ok(call, "the recording is there");
    const answer = call.meaning.messages.map((m) => m.text).join("");
    const listing = (exchange: Parameters<Parameters<ChatServer["otherwise"]>[0]>[0]) => {
      exchange.res.writeHead(200, { "content-type": "application/json" });
      exchange.res.end(
        JSON.stringify({ object: "list", data: [{ id: "gpt-5.1", object: "model" }] }),
      );
    };
    server.otherwise(async (exchange) => {
      if (exchange.request.url.endsWith("/v1/models")) return listing(exchange);
      if (exchange.request.method !== "POST") return void exchange.res.writeHead(404).end();
      exchange.res.writeHead(200, { "content-type": "text/event-stream" });
      exchange.res.end(wireOf("responses", call, "\n"));
    });
    writeFileSync(configPath, JSON.stringify({ models_dev_url: `${server.baseUrl}/m.json` }));
    const key = { OPENAI_API_KEY: "sk-e2e" };
    const setup = await run(["setup", "--yes", "--base-url", server.baseUrl], key);
    assert.equal(setup.code, 0, setup.stderr);
    assert.match(setup.stdout, /Model: openai\/gpt-5\.1/);
    const turn = await run(["exec", "Say hello"], key);
    assert.equal(turn.code, 0, turn.stderr);
    assert.equal(turn.stdout.trim(), answer.trim());
    const sent = server.requests.find((q) => q.method === "POST");
    assert.ok(sent, "the turn reached the provider");
    assert.match(sent.url, /\/v1\/responses$/);
    assert.equal((sent.body as { model?: string }).model, "gpt-5.1");
    assert.equal(sent.headers.authorization, "Bearer sk-e2e");
  });

  it("a key stored in MC_HOME/auth.json refreshes a staged provider as mc-agent refresh does", async () => {
    writeFileSync(configPath, JSON.stringify({ models_dev_url: `${server.baseUrl}/m.json` }));
    const stored = `${JSON.stringify({ openai: { type: "api_key", key: "sk-stored" } })}\n`;
    writeFileSync(join(box.home, "auth.json"), stored, { mode: 0o600 });
    // --base-url: a provider entry the file lacks, so the refresh runs in a staging home.
    const r = await run(["setup", "--yes", "--base-url", server.baseUrl]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /credential in MC_HOME\/auth\.json/);
    const listing = server.requests.find((q) => q.url.endsWith("/v1/models"));
    assert.equal(listing?.headers.authorization, "Bearer sk-stored");
    assert.equal(JSON.parse(readFileSync(configPath, "utf8")).model, "openai/qwen2.5-coder:latest");
    assert.equal(readFileSync(join(box.home, "auth.json"), "utf8"), stored, "left as it was");
  });

  it("acp --setup runs setup (answers on stdin) and exits 0 once the model is written", async () => {
    writeFileSync(
      configPath,
      JSON.stringify({
        providers: { openai: { base_url: server.baseUrl } },
        models_dev_url: `${server.baseUrl}/models-dev.json`,
      }),
    );
    // "1" twice: the provider, had a default port answered too, then the first model.
    const r = await run(["acp", "--setup"], { OPENAI_API_KEY: "sk-acp" }, "1\n1\n");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(configPath, "utf8")).model, "openai/qwen2.5-coder:latest");
    const usage = await run(["acp", "--setup", "--print-config", "zed"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /do not go together \(usage_error\)/);
  });

  it("acp --print-config: the launcher's absolute path as the command, never node", async () => {
    for (const editor of ["zed", "jetbrains"]) {
      const r = await run(["acp", "--print-config", editor]);
      assert.equal(r.code, 0, r.stderr);
      const entry = JSON.parse(r.stdout).agent_servers["mc-agent"];
      assert.equal(entry.command, join(PACKAGE_ROOT, "bin", "mc-agent.js"));
      assert.deepEqual(entry.args, ["acp"]);
      assert.equal(entry.type, editor === "zed" ? "custom" : undefined);
      accessSync(entry.command, constants.X_OK);
    }
    const wrong = await run(["acp", "--print-config", "emacs"]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /takes zed or jetbrains/);
  });

  it("finds Codex's and Claude Code's logins and other key variables, by name only", async () => {
    mkdirSync(join(box.home, ".codex"), { recursive: true });
    writeFileSync(
      join(box.home, ".codex", "auth.json"),
      JSON.stringify({ tokens: { access_token: "codex-secret", refresh_token: "r" } }),
    );
    mkdirSync(join(box.home, ".claude"), { recursive: true });
    writeFileSync(
      join(box.home, ".claude", ".credentials.json"),
      JSON.stringify({
        claudeAiOauth: { accessToken: "claude-secret", expiresAt: 4_102_444_800_000 },
      }),
    );
    const closed = await startChatServer();
    const url = closed.baseUrl;
    await closed.close();
    // An unknown --provider stops after the list: no refresh reaches a real provider.
    const r = await run(["setup", "--server", url, "--provider", "nope"], { GEMINI_API_KEY: "g" });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /anthropic +Claude Code login \(.+\.credentials\.json\)/);
    assert.match(r.stdout, /codex +Codex login \(.+auth\.json\)/);
    assert.match(r.stdout, /Also set: GEMINI_API_KEY \(no built-in provider uses it/);
    assert.match(r.stderr, /no provider or server named "nope" .*Found: anthropic, codex\./);
    assert.ok(!`${r.stdout}${r.stderr}`.match(/codex-secret|claude-secret/), "no token shown");
    assert.ok(!existsSync(configPath));
  });

  it("a server that accepts but never answers is given up after the probe's bound", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const r = await run(["setup", "--yes", "--server", `http://127.0.0.1:${port}`]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /\(nothing_found\)/);
      assert.ok(sockets.length >= 1, "the probe connected");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("--server and --base-url take a URL of at most 2040 characters", async () => {
    const closed = await startChatServer();
    const base = closed.baseUrl;
    await closed.close();
    const of = (length: number) => `${base}/${"a".repeat(length - base.length - 1)}`;
    const atBound = await run(["setup", "--yes", "--server", of(2040)]);
    assert.equal(atBound.code, 1, "accepted, probed, found nothing");
    assert.match(atBound.stderr, /\(nothing_found\)/);
    const past = await run(["setup", "--yes", "--server", of(2041)]);
    assert.equal(past.code, 2);
    assert.match(past.stderr, /--server takes an http:\/\/ or https:\/\/ URL of at most 2040/);
    const notUrl = await run(["setup", "--yes", "--base-url", "ftp://x"]);
    assert.equal(notUrl.code, 2);
  });
});
