import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { McpManager } from "../../src/agent/mcp/manager.js";
import { initializeFacts } from "../../src/boot/initialize-facts.js";
import { fastInitializeLine } from "../../src/boot/initialize-fast.js";
import { PACKAGE_ROOT, sandbox, TestChild } from "../../src/conformance/harness.js";
import { CAPABILITIES } from "../../src/protocol/capabilities.js";
import { decodeFrame } from "../../src/protocol/envelope.js";
import { buildHandlers } from "../../src/server/handlers/index.js";
import { createState } from "../../src/server/state.js";
import { fullChildAnswer } from "../helpers/answer-of.js";

/**
 * The starter's fast initialize (src/boot/starter.ts, src/boot/initialize-fast.ts;
 * docs/local-agent-protocol.md, "Fast start"): for every initialize, the fast path answers exactly when the
 * full child would answer with a result and the request negotiates nothing the child must find
 * out first, and then with the full child's bytes. Checked in-process against the real
 * dispatcher with the real handlers on generated requests, and end to end on the built child.
 */

const box = sandbox("mc-fast-start-");
after(() => box.cleanup());
const state = createState(box.workspace, box.home, { PATH: process.env.PATH });
const handlers = buildHandlers(state, {
  // As the stdio child has it (src/server/stdio.ts), with no servers configured.
  mcp: (settings) =>
    new McpManager({
      servers: settings.global.mcp_servers,
      env: state.env,
      workspace: state.cwd,
      debug: null,
    }),
});
const facts = initializeFacts();

/** The full child's answer to one initialize frame, from a fresh dispatcher. */
async function fullAnswer(frame: string): Promise<string> {
  state.phase = "uninitialized";
  state.negotiated = new Set();
  // A turn's initialize waits for the sandbox probe.
  return fullChildAnswer(state, handlers, frame, { steps: 2000 });
}

function fastAnswer(frame: string): string | null {
  const decoded = decodeFrame(Buffer.from(frame));
  if (!decoded.ok) return null;
  return fastInitializeLine(decoded.request.id, decoded.request.params, facts);
}

async function agree(params: unknown): Promise<void> {
  const frame = JSON.stringify({ id: "init-1", method: "initialize", params });
  const full = await fullAnswer(frame);
  const fast = fastAnswer(frame);
  const succeeded = "result" in JSON.parse(full);
  const requested = (params as { required_capabilities?: unknown }).required_capabilities;
  const foundOut =
    Array.isArray(requested) && requested.some((name) => facts.foundOut.includes(name));
  if (fast !== null) assert.equal(fast, full, `fast and full differ for ${frame}`);
  // Never a fast answer the full child would not give, and no full result it leaves out but
  // those that wait for what the child finds out.
  assert.equal(fast !== null, succeeded && !foundOut, `fast path ${fast !== null} for ${frame}`);
}

const text = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.string({ minLength: 254, maxLength: 258 }),
  fc.constantFrom("", "x", "\ud800", "a".repeat(256), "a".repeat(257), "é".repeat(256)),
);
const capability = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...CAPABILITIES) },
  { weight: 1, arbitrary: fc.constantFrom("unknown.capability", "", "x".repeat(257), 7, null) },
);
const client = fc.oneof(
  { weight: 8, arbitrary: fc.record({ name: text, version: text }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { name: "x" },
      { name: "x", version: "1", extra: true },
      null,
      [],
      "client",
    ),
  },
);
const params = fc
  .record({
    protocol_version: fc.oneof(
      { weight: 8, arbitrary: fc.constant(1) },
      { weight: 1, arbitrary: fc.constantFrom(0, 2, 1.5, "1", null, -1, 2 ** 53) },
    ),
    client,
    required_capabilities: fc.oneof(
      { weight: 8, arbitrary: fc.array(capability, { maxLength: 8 }) },
      { weight: 1, arbitrary: fc.array(fc.constantFrom(...CAPABILITIES), { maxLength: 70 }) },
      { weight: 1, arbitrary: fc.constantFrom("turn", null, {}) },
    ),
  })
  .chain((value) =>
    fc.constantFrom<Record<string, unknown>>(
      value,
      value,
      value,
      { ...value, extra: 1 },
      Object.fromEntries(Object.entries(value).slice(1)),
    ),
  );

describe("the fast initialize agrees with the full child", () => {
  test("on generated requests, byte for byte", async () => {
    await fc.assert(fc.asyncProperty(params, agree), { numRuns: 400 });
  });

  test("at the schema's edges", async () => {
    const base = {
      protocol_version: 1,
      client: { name: "x", version: "1" },
      required_capabilities: ["session.discover", "model.refresh", "operation.cancel"],
    };
    for (const edge of [
      base,
      { ...base, client: { name: "n".repeat(256), version: "v".repeat(256) } },
      { ...base, client: { name: "n".repeat(257), version: "1" } },
      { ...base, client: { name: "x", version: "v".repeat(257) } },
      { ...base, client: { name: "", version: "1" } },
      { ...base, required_capabilities: [] },
      { ...base, required_capabilities: [...CAPABILITIES].filter((c) => c !== "turn") },
      { ...base, required_capabilities: [...CAPABILITIES] },
      { ...base, required_capabilities: ["turn"] },
      { ...base, required_capabilities: ["operation.cancel", "operation.cancel"] },
      { ...base, required_capabilities: Array(64).fill("x") },
      { ...base, required_capabilities: Array(65).fill("x") },
      { ...base, protocol_version: 2 },
    ])
      await agree(edge);
  });

  test("every capability is implemented, and only those listed wait for what the child finds out", () => {
    const waiting = [
      ...new Set([...Object.keys(state.extensionPending), ...Object.keys(state.extensionExtras)]),
    ];
    assert.deepEqual(waiting.sort(), [...facts.foundOut].sort());
    assert.deepEqual(facts.capabilities, [...CAPABILITIES]);
  });

  test("the starter's bundle holds neither zod nor the protocol's tables", () => {
    const meta = JSON.parse(
      readFileSync(join(PACKAGE_ROOT, "dist", "starter-meta.json"), "utf8"),
    ) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    assert.ok(inputs.includes("dist/src/boot/starter.js"), inputs.join(", "));
    const heavy = inputs.filter((path) =>
      /node_modules|schemas|methods\.js|capabilities\.js/.test(path),
    );
    assert.deepEqual(heavy, []);
  });
});

/** The built child, started as a frontend starts it; `fast: false` sets MC_AGENT_FAST_START=0. */
function child(fast: boolean) {
  const home = sandbox("mc-fast-start-child-");
  const spawned = new TestChild({
    cwd: home.workspace,
    home: home.home,
    testMethods: true,
    env: fast ? {} : { MC_AGENT_FAST_START: "0" },
  });
  return {
    child: spawned,
    async close() {
      await spawned.close();
      home.cleanup();
    },
  };
}

const INIT = {
  id: "i1",
  method: "initialize",
  params: {
    protocol_version: 1,
    client: { name: "fast-start-test", version: "1.0.0" },
    required_capabilities: ["session.discover", "operation.cancel", "session.list"],
  },
};

async function schemasBuilt(spawned: TestChild): Promise<string[]> {
  const frame = await spawned.request("test.schemas", {});
  assert.ok(frame.result, JSON.stringify(frame.error));
  return (frame.result as { built: string[] }).built;
}

describe("the built child's fast start", () => {
  test("answers a plain initialize without building its schemas; MC_AGENT_FAST_START=0 does", async () => {
    for (const fast of [true, false]) {
      const { child: spawned, close } = child(fast);
      try {
        await spawned.sendBytes(Buffer.from(`${JSON.stringify(INIT)}\n`));
        const init = await spawned.waitFor((f) => f.id === "i1");
        assert.ok(init.result, JSON.stringify(init.error));
        const built = await schemasBuilt(spawned);
        assert.equal(built.includes("lifecycle.InitializeParams"), !fast, built.join(", "));
      } finally {
        await close();
      }
    }
  });

  test("frames behind the initialize, in one write or split inside it, answered in order", async () => {
    const behind = [
      { id: "s1", method: "status", params: {} },
      // The initialize's ID is taken: it was admitted.
      { id: "i1", method: "session.list", params: {} },
      { id: "i2", method: "initialize", params: INIT.params },
      { id: "c1", method: "operation.cancel", params: { request_id: "nothing" } },
    ];
    const bytes = `${[INIT, ...behind].map((f) => JSON.stringify(f)).join("\n")}\n`;
    const transcripts: string[][] = [];
    for (const [fast, split] of [
      [true, false],
      [true, true],
      [false, false],
    ] as const) {
      const { child: spawned, close } = child(fast);
      try {
        // Split inside the initialize, the rest written well after the child began reading.
        if (split) {
          await spawned.sendBytes(Buffer.from(bytes.slice(0, 40)));
          await new Promise((r) => setTimeout(r, 300));
          await spawned.sendBytes(Buffer.from(bytes.slice(40)));
        } else await spawned.sendBytes(Buffer.from(bytes));
        await spawned.waitFor((f) => f.id === "c1");
        transcripts.push(
          spawned.rawLines.map((line) => line.replace(spawned.options.cwd, "<cwd>")),
        );
      } finally {
        await close();
      }
    }
    const [first] = transcripts;
    assert.ok(first);
    const frames = first.map((line) => JSON.parse(line));
    assert.deepEqual(
      frames.map((f) => f.id),
      ["i1", "s1", "i1", "i2", "c1"],
    );
    assert.equal(frames[1].result.requests_left, 4095);
    assert.equal(frames[1].result.state, "ready");
    assert.equal(frames[2].error.code, "duplicate_request_id");
    assert.equal(frames[3].error.code, "already_initialized");
    assert.equal(frames[4].error.code, "operation_missing");
    for (const other of transcripts.slice(1)) assert.deepEqual(other, first);
  });

  test("an initialize and then EOF: answered, and the child ends as at any EOF", async () => {
    const { child: spawned, close } = child(true);
    try {
      await spawned.sendBytes(Buffer.from(`${JSON.stringify(INIT)}\n`));
      spawned.closeStdin();
      const exit = await spawned.exited;
      assert.equal(exit.code, 0, spawned.stderr);
      assert.deepEqual(
        spawned.frames.map((f) => f.id),
        ["i1"],
      );
    } finally {
      await close();
    }
  });

  test("a reader gone before the initialize answer: the child ends as when its stdout closes", async () => {
    const { child: spawned, close } = child(true);
    try {
      spawned.closeOutput();
      await spawned.sendBytes(Buffer.from(`${JSON.stringify(INIT)}\n`));
      const exit = await spawned.exited;
      assert.equal(exit.code, 0, spawned.stderr);
      assert.equal(spawned.stderr, "");
    } finally {
      await close();
    }
  });

  test("an initialize negotiating turn is the starter's too: its extension says what it found", async () => {
    const { child: spawned, close } = child(true);
    try {
      const init = await spawned.initialize(["turn", "operation.cancel"]);
      const turn = (init.result as { extensions: Record<string, { sandbox?: unknown }> }).extensions
        .turn;
      assert.ok(turn && "sandbox" in turn, JSON.stringify(init.result));
      // test/boot/fast-start-turn.test.ts holds it to the full child's bytes.
      assert.ok(!(await schemasBuilt(spawned)).includes("lifecycle.InitializeParams"));
    } finally {
      await close();
    }
  });
});
