import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { startChatServer } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { RawAgent } from "./raw-agent.js";

describe("mc-agent acp: bad frames and refusals", () => {
  let box: Sandbox;
  let agent: RawAgent | undefined;
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
    box.cleanup();
  });

  it("answers -32600 and -32602 with our code, writes nothing, and goes on", async () => {
    box = sandbox("mc-acp-");
    const server = await startChatServer();
    try {
      writeTurnHome(box, server.baseUrl);
      agent = new RawAgent(box, { MC_KIT_KEY: "k" });
      const a = agent;
      a.request(1, "initialize", { protocolVersion: 1 });
      assert.ok((await a.answer(1)).result);
      a.request(2, "session/new", { cwd: 5 });
      const wrongType = (await a.answer(2)).error as { code: number; data: unknown };
      assert.equal(wrongType.code, -32602);
      assert.deepEqual(wrongType.data, { code: "invalid_params" });
      a.request(3, "session/new", { cwd: "relative", mcpServers: [] });
      const relative = (await a.answer(3)).error as {
        code: number;
        message: string;
        data: unknown;
      };
      assert.equal(relative.code, -32602);
      assert.deepEqual(relative.data, { code: "invalid_params" });
      a.request(4, "session/new", { cwd: join(box.root, "no-such-folder"), mcpServers: [] });
      const missing = (await a.answer(4)).error as { code: number; message: string };
      assert.equal(missing.code, -32602);
      assert.equal(missing.message.includes(box.root), false, "no path in the message");
      // A JSON value that is no object, and a line that is no JSON: answered, not echoed.
      a.send(JSON.stringify("sk-echo-string"));
      a.send("not json sk-echo-text");
      // Not a request at all (its method is no string): -32600, without the frame echoed back.
      a.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: 5, params: { secret: "sk-echo" } }));
      a.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 6,
          method: "session/prompt",
          params: { sessionId: "nope", prompt: [{ type: "text", text: "hi" }] },
        }),
      );
      const unknown = (await a.answer(6)).error as { code: number; data: unknown };
      assert.equal(unknown.code, -32002);
      assert.deepEqual(unknown.data, { code: "session_missing" });
      const invalid = a.lines.find(
        (l) => (l.error as { code?: number } | undefined)?.code === -32600,
      );
      assert.ok(invalid, `an invalid request is answered -32600: ${JSON.stringify(a.lines)}`);
      assert.deepEqual((invalid.error as { data: unknown }).data, { code: "invalid_request" });
      assert.equal(JSON.stringify(a.lines).includes("sk-echo"), false);
      const parse = a.lines.find(
        (l) => (l.error as { code?: number } | undefined)?.code === -32700,
      );
      assert.ok(parse, "a line that is no JSON is answered -32700");
      assert.deepEqual((parse.error as { data: unknown }).data, { code: "invalid_request" });
      assert.equal(existsSync(join(box.home, "sessions")), false, "nothing was written");
      // Still serving: a well-formed request works.
      a.request(7, "session/new", { cwd: box.workspace, mcpServers: [] });
      assert.ok((await a.answer(7)).result);
    } finally {
      await server.close();
    }
  });

  it("initialize and session/new in one write: both answered, in order", async () => {
    box = sandbox("mc-acp-");
    const server = await startChatServer();
    try {
      writeTurnHome(box, server.baseUrl);
      agent = new RawAgent(box, { MC_KIT_KEY: "k" });
      const a = agent;
      const frame = (id: number, method: string, params: unknown) =>
        `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
      a.proc.stdin.write(
        frame(1, "initialize", { protocolVersion: 1, clientCapabilities: { terminal: true } }) +
          frame(2, "session/new", { cwd: box.workspace, mcpServers: [] }) +
          frame(3, "session/list", {}),
      );
      const created = (await a.answer(2)).result as { sessionId: string };
      assert.match(created.sessionId, /^[0-9a-f-]{36}$/);
      assert.ok((await a.answer(3)).result, JSON.stringify(a.lines));
      const order = a.lines.filter((l) => l.id !== undefined).map((l) => l.id);
      assert.equal(order[0], 1, `initialize is answered first: ${order.join(", ")}`);
      const initialized = (await a.answer(1)).result as { agentCapabilities?: unknown };
      assert.ok(initialized.agentCapabilities);
    } finally {
      await server.close();
    }
  });

  it("a request before any initialize, or behind one that failed, is still refused -32600", async () => {
    box = sandbox("mc-acp-");
    agent = new RawAgent(box);
    const a = agent;
    a.request(1, "session/list", {});
    const early = (await a.answer(1)).error as { code: number; message: string; data: unknown };
    assert.equal(early.code, -32600);
    assert.equal(early.message, "ACP connection must be initialized before 'session/list'");
    assert.deepEqual(early.data, { code: "invalid_request" });
    // Pipelined behind an initialize whose params are off ACP's schema (-32602).
    a.proc.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 70000 } })}\n${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: box.workspace, mcpServers: [] } })}\n`,
    );
    assert.equal(((await a.answer(2)).error as { code: number }).code, -32602);
    assert.equal(((await a.answer(3)).error as { code: number }).code, -32600);
    assert.equal(existsSync(join(box.home, "sessions")), false, "nothing was written");
    // A good initialize afterwards opens the gate.
    a.request(4, "initialize", { protocolVersion: 1 });
    assert.ok((await a.answer(4)).result);
    a.request(5, "session/list", {});
    assert.ok((await a.answer(5)).result);
  });

  it("advertises an auth method, with a clear message, when no provider has credentials", async () => {
    box = sandbox("mc-acp-");
    const server = await startChatServer();
    try {
      writeTurnHome(box, server.baseUrl);
      agent = new RawAgent(box);
      agent.request(1, "initialize", { protocolVersion: 1 });
      const result = (await agent.answer(1)).result as {
        authMethods: { id: string; description: string }[];
      };
      assert.equal(result.authMethods.length, 1);
      assert.match(
        result.authMethods[0]?.description ?? "",
        /No model provider is set up with credentials\. Run "MC_HOME=/,
      );
      agent.request(2, "authenticate", { methodId: "configure-credentials" });
      const refused = (await agent.answer(2)).error as { code: number; data: unknown };
      assert.equal(refused.code, -32000);
      assert.deepEqual(refused.data, { code: "authentication_unavailable" });
    } finally {
      await server.close();
    }
  });

  it("a line over 32 MiB is a parse error, and the agent goes on with its memory bounded", async () => {
    box = sandbox("mc-acp-");
    agent = new RawAgent(box);
    const a = agent;
    a.request(1, "initialize", { protocolVersion: 1 });
    assert.ok((await a.answer(1)).result);
    const pid = a.proc.pid as number;
    // 33 MiB, then 256 MiB: each a JSON-looking request the agent must not hold whole.
    const peaks: number[] = [];
    for (const mib of [33, 256]) {
      const head = '{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"';
      const line = Buffer.alloc(mib * 1024 * 1024 + 1, "a");
      line.write(head, 0);
      line.write('"}}\n', line.length - 4);
      await new Promise<void>((resolve, reject) =>
        a.proc.stdin.write(line, (e) => (e ? reject(e) : resolve())),
      );
      await a.until(() => a.lines.filter((l) => l.id === null).length === peaks.length + 1);
      peaks.push(peakRss(pid));
    }
    a.request(2, "session/list", {});
    assert.ok((await a.answer(2)).result, "the agent read on");
    const errors = a.lines.filter((l) => l.id === null);
    assert.equal(errors.length, 2);
    for (const line of errors)
      assert.deepEqual(line.error, {
        code: -32700,
        message: "Parse error",
        data: { code: "invalid_request" },
      });
    assert.ok(!a.lines.some((l) => l.id === 9), "the cut request was never run");
    // The 256 MiB line was never held whole: the peak grew by far less than its size (the
    // SDK's one line of at most 32 MiB, decoded once; about 66 MiB measured).
    const grown = (peaks[1] as number) - (peaks[0] as number);
    assert.ok(grown < 128 * 1024 * 1024, `peak RSS grew by ${grown} bytes`);
  });
});

/** The process's peak resident set (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  assert.ok(kib, "VmHWM in /proc");
  return Number(kib) * 1024;
}
