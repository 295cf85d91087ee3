import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text } from "../../src/conformance/chat-server.js";
import { CHILD_BIN, PACKAGE_ROOT, type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { KIT_KEY, writeTurnHome } from "../../src/conformance/turn-world.js";
import { acpBoxEnv } from "../helpers/acp-process.js";
import { AcpWorld } from "./acp-world.js";

/**
 * `mc-agent acp`'s starter (src/acp/starter.ts) answers an editor's first `initialize` before
 * the SDK has loaded, with the answer the SDK's handler builds (src/acp/initialize-answer.ts).
 * Seen from outside: the bytes of that answer are the ones the agent writes without the starter
 * (`MC_AGENT_FAST_START=0`), from an empty MC_HOME and from a configured one, with and without
 * terminal authentication and a key; the SDK's own answer to it is never written a second time;
 * the next requests are answered as before, even sent before the answer came.
 */

interface Run {
  lines: string[];
  stderr: string;
}

const INITIALIZE = (capabilities: object) =>
  `${JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: 1,
      clientCapabilities: capabilities,
      clientInfo: { name: "starter-test", version: "1" },
    },
  })}\n`;
const NEW_SESSION = (box: Sandbox) =>
  `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: box.workspace, mcpServers: [] } })}\n`;

/**
 * One editor's start through the launcher: initialize, then session/new once the answer came
 * (or both at once with `pipelined`); every line the agent wrote up to session/new's answer.
 */
async function start(
  box: Sandbox,
  capabilities: object,
  env: Record<string, string>,
  pipelined = false,
): Promise<Run> {
  const agent = spawn(CHILD_BIN, ["acp"], {
    cwd: box.workspace,
    env: {
      PATH: process.env.PATH ?? "",
      ...acpBoxEnv(box),
      MC_LOG: "debug",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  agent.stderr.setEncoding("utf8");
  agent.stderr.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const lines: string[] = [];
  const exited = new Promise((resolve) => agent.on("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    let buffer = "";
    agent.stdout.setEncoding("utf8");
    agent.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      for (let lf = buffer.indexOf("\n"); lf !== -1; lf = buffer.indexOf("\n")) {
        const line = buffer.slice(0, lf + 1);
        buffer = buffer.slice(lf + 1);
        lines.push(line);
        const { id } = JSON.parse(line) as { id?: unknown };
        if (id === 0 && !pipelined) agent.stdin.write(NEW_SESSION(box));
        if (id === 1) resolve();
      }
    });
    agent.on("exit", () => reject(new Error(`the agent exited: ${stderr}`)));
    agent.stdin.write(INITIALIZE(capabilities) + (pipelined ? NEW_SESSION(box) : ""));
  });
  agent.stdin.end();
  await exited;
  return { lines, stderr };
}

/** The answer to request `id` among the lines (updates come after session/new's). */
const answerTo = (run: Run, id: number) =>
  run.lines.map((line) => JSON.parse(line)).find((frame) => frame.id === id) ?? {};
const answered = (run: Run) => run.stderr.includes("the starter answered initialize");
const DIFFERS = "differs from the starter's";
const PLAIN = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const TERMINAL = { ...PLAIN, auth: { terminal: true } };

/** The same start with the starter and without: the lines compared, session IDs aside. */
async function compare(box: Sandbox, capabilities: object, env: Record<string, string> = {}) {
  const fast = await start(box, capabilities, env);
  const slow = await start(box, capabilities, { ...env, MC_AGENT_FAST_START: "0" });
  assert.ok(!answered(slow), "MC_AGENT_FAST_START=0 leaves initialize to the SDK");
  assert.ok(!fast.stderr.includes(DIFFERS), fast.stderr);
  assert.equal(fast.lines[0], slow.lines[0], "the initialize answer, byte for byte");
  assert.equal(fast.lines.filter((l) => JSON.parse(l).id === 0).length, 1, "answered once");
  const session = (run: Run) => {
    const frame = answerTo(run, 1);
    return frame.result ? Object.keys(frame.result).sort() : frame.error;
  };
  assert.deepEqual(session(fast), session(slow), "session/new answered alike");
  return { fast, slow };
}

describe("acp starter: an editor's initialize answered before the SDK loads", () => {
  it("from an empty MC_HOME: the configure method, the starter's answer the SDK's bytes", async () => {
    const box = sandbox("mc-acp-starter-");
    try {
      const { fast } = await compare(box, PLAIN);
      assert.ok(answered(fast), fast.stderr);
      const result = JSON.parse(fast.lines[0] ?? "").result;
      assert.equal(result.authMethods[0].id, "configure-credentials");
      assert.ok(result.authMethods[0].description.includes(`MC_HOME=${box.home}`));
      assert.equal(answerTo(fast, 1).error.data.code, "authentication_unavailable");
    } finally {
      box.cleanup();
    }
  });

  it("with terminal authentication, and with a key in the environment", async () => {
    const box = sandbox("mc-acp-starter-");
    try {
      const terminal = await compare(box, TERMINAL);
      assert.ok(answered(terminal.fast));
      assert.equal(JSON.parse(terminal.fast.lines[0] ?? "").result.authMethods[0].type, "terminal");
      // The launcher hands the key over on fd 3; the starter looks in that environment.
      const keyed = await compare(box, PLAIN, { OPENAI_API_KEY: "sk-starter-test" });
      assert.ok(answered(keyed.fast));
      assert.deepEqual(JSON.parse(keyed.fast.lines[0] ?? "").result.authMethods, []);
      assert.ok(answerTo(keyed.fast, 1).result.sessionId);
    } finally {
      box.cleanup();
    }
  });

  it("from a configured MC_HOME without a built-in key, or with a credential file, the SDK answers", async () => {
    const box = sandbox("mc-acp-starter-");
    try {
      writeTurnHome(box, "http://127.0.0.1:9/v1", { contextWindow: 1000 });
      const configured = await compare(box, PLAIN, { MC_KIT_KEY: KIT_KEY });
      assert.ok(!answered(configured.fast), "a settings file is the full look's");
      assert.ok(answerTo(configured.fast, 1).result.sessionId);
      // A built-in provider's key the settings do not rename: settled without them.
      const keyed = await compare(box, PLAIN, { MC_KIT_KEY: KIT_KEY, OPENAI_API_KEY: "sk-x" });
      assert.ok(answered(keyed.fast), keyed.fast.stderr);
      // With terminal authentication the settings do not matter: the starter answers.
      const terminal = await compare(box, TERMINAL, { MC_KIT_KEY: KIT_KEY });
      assert.ok(answered(terminal.fast));
    } finally {
      box.cleanup();
    }
    const bare = sandbox("mc-acp-starter-");
    try {
      mkdirSync(bare.home, { recursive: true });
      writeFileSync(join(bare.home, "auth.json"), "{}", { mode: 0o600 });
      const filed = await compare(bare, PLAIN);
      assert.ok(!answered(filed.fast), "a credential file is the full look's");
    } finally {
      bare.cleanup();
    }
  });

  it("a session/new sent with the initialize waits for the SDK's initialize, then is answered", async () => {
    const box = sandbox("mc-acp-starter-");
    try {
      const run = await start(box, PLAIN, { OPENAI_API_KEY: "sk-starter-test" }, true);
      assert.ok(answered(run), run.stderr);
      assert.ok(!run.stderr.includes(DIFFERS), run.stderr);
      const answers = run.lines.filter((line) => "id" in JSON.parse(line));
      assert.equal(answers.length, 2, run.lines.join(""));
      assert.ok(answerTo(run, 1).result?.sessionId, run.lines.join(""));
    } finally {
      box.cleanup();
    }
  });

  it("the SDK's client through the starter's answer: a configured home, session/new, a prompt", async () => {
    const world = await AcpWorld.start({ env: { MC_LOG: "debug" } });
    try {
      const init = await world.initialize({ ...PLAIN, auth: { terminal: true } });
      assert.equal(init.authMethods?.[0]?.id, "mc-agent-setup");
      await world.until(
        () => world.stderr.includes("the starter answered initialize"),
        "the starter",
      );
      const created = await world.newSession();
      world.server.reply(text("Answered after the starter."));
      const answer = await world.prompt(created.sessionId, "Hello");
      assert.equal(answer.stopReason, "end_turn");
      assert.equal(world.agentText(), "Answered after the starter.");
      assert.ok(!world.stderr.includes(DIFFERS), world.stderr);
    } finally {
      await world.close();
    }
  });

  it("the starter's bundle holds neither zod nor the ACP SDK", () => {
    const meta = JSON.parse(readFileSync(join(PACKAGE_ROOT, "dist/acp-starter-meta.json"), "utf8"));
    const inputs = Object.keys(meta.inputs as object);
    assert.ok(inputs.some((path) => path.endsWith("acp/initialize-answer.js")));
    assert.deepEqual(
      inputs.filter((path) => /node_modules\/(zod|@agentclientprotocol)\//.test(path)),
      [],
    );
  });
});
