import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";
import { serveLikeOllama } from "./setup-world.js";

/**
 * `mc-agent setup` on a real terminal (a pty from util-linux `script`), typed at as a new user
 * would: a key in the environment and a local server both found, a provider and a model picked
 * from the lists, and Ctrl-C at each step (the provider question, the refresh, the model
 * question) leaving the old config.json byte for byte.
 */
describe("mc-agent setup on a terminal", {
  skip: hasScript() ? false : "util-linux script is not installed",
}, () => {
  let box: Sandbox;
  let server: ChatServer;
  let configPath: string;
  let before: string;
  let runs: PtyRun[] = [];
  beforeEach(async () => {
    box = sandbox("mc-cli-setup-tty-");
    server = await startChatServer();
    serveLikeOllama(server);
    configPath = join(box.home, "config.json");
    // The user's own layout and settings, which every outcome below must keep.
    before = `{\n\t"models_dev_url": "${server.baseUrl}/models-dev.json",\n\t"effort": "medium"\n}\n`;
    writeFileSync(configPath, before);
  });
  afterEach(async () => {
    for (const run of runs) run.kill();
    runs = [];
    await server.close();
    box.cleanup();
  });
  const start = () => {
    const line = `exec ${shellQuote(process.execPath)} ${shellQuote(CHILD_BIN)} setup --server ${shellQuote(server.baseUrl)}`;
    const run = new PtyRun(line, {
      cwd: box.workspace,
      env: { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, OPENAI_API_KEY: "sk-t" },
    });
    runs.push(run);
    return run;
  };
  const untouched = () => {
    assert.equal(readFileSync(configPath, "utf8"), before, "config.json is byte-identical");
    assert.ok(!existsSync(join(box.home, "cache", "models", "local.json")), "no cache adopted");
  };

  it("finds the key and the server, then a provider and a model picked: the file written", async () => {
    const run = start();
    await run.waitFor("Set up which provider?");
    assert.match(run.output, /openai +key in OPENAI_API_KEY/);
    assert.match(run.output, /local +server at \S+ \(2 models, no key\)/);
    run.type("\r"); // Enter: the default, the server named with --server
    await run.waitFor("Use which model?");
    run.type("2\r");
    assert.equal(await run.done, 0, run.output);
    assert.match(run.output, /Next: .*mc-agent chat/);
    const after = readFileSync(configPath, "utf8");
    assert.deepEqual(JSON.parse(after), {
      models_dev_url: `${server.baseUrl}/models-dev.json`,
      effort: "medium",
      providers: { local: { type: "openai-compatible", base_url: server.baseUrl } },
      enabled_models: ["local/llama3.2:3b"],
      model: "local/llama3.2:3b",
    });
    assert.match(after, /^\t"effort": "medium",$/m, "the file's tabs are kept");
  });

  it("Ctrl-C at the provider question: exit 130, the file untouched", async () => {
    const run = start();
    await run.waitFor("Set up which provider?");
    run.type("\x03");
    assert.equal(await run.done, 130, run.output);
    assert.match(run.output, /setup stopped; .* is unchanged/);
    untouched();
  });

  it("Ctrl-C at the model question: exit 130, the file untouched", async () => {
    const run = start();
    await run.waitFor("Set up which provider?");
    run.type("1\r");
    await run.waitFor("Use which model?");
    run.type("\x03");
    assert.equal(await run.done, 130, run.output);
    untouched();
  });

  it("Ctrl-C during the refresh: cancelled through the protocol, exit 130, the file untouched", async () => {
    // The probe is answered; the refresh's listing never is, until the test ends.
    let listings = 0;
    const held: (() => void)[] = [];
    server.otherwise(async (exchange) => {
      listings += 1;
      if (listings === 1) {
        exchange.res.writeHead(200, { "content-type": "application/json" });
        exchange.res.end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model" }] }));
        return;
      }
      await new Promise<void>((resolve) => held.push(resolve));
      exchange.res.writeHead(503).end();
    });
    const run = start();
    await run.waitFor("Set up which provider?");
    run.type("1\r");
    await run.waitFor("(Ctrl-C cancels)");
    run.type("\x03");
    assert.equal(await run.done, 130, run.output);
    for (const release of held) release();
    untouched();
  });
});
