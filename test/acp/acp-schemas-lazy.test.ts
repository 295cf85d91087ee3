import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { PACKAGE_ROOT } from "../../src/conformance/harness.js";

/**
 * The ACP SDK's schemas built on first use in `mc-agent acp`'s bundles
 * (scripts/acp-schemas-on-first-use.js): the SDK's generated module, rewritten as the build
 * rewrites it, evaluated beside the SDK's own, builds none of its schemas when evaluated, and
 * every one of its 178 schemas parses exactly as the SDK's own does: the same success, output
 * and issues for ACP messages written out and for generated values.
 */
type Schema = {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } };
  _zod: { def: { type: string; _cachedInner?: unknown } };
};
type SchemaModule = Record<string, Schema>;

const SDK_SCHEMAS = join(
  PACKAGE_ROOT,
  "node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js",
);
const temp = mkdtempSync(join(tmpdir(), "mc-acp-schemas-"));
after(() => rmSync(temp, { recursive: true, force: true }));

const { schemasOnFirstUse, guardsOnFirstUse } = (await import(
  pathToFileURL(join(PACKAGE_ROOT, "scripts/acp-schemas-on-first-use.js")).href
)) as {
  schemasOnFirstUse(text: string): { text: string; schemas: number };
  guardsOnFirstUse(text: string): { text: string; schemas: number };
};
const original = (await import(pathToFileURL(SDK_SCHEMAS).href)) as SchemaModule;

/** The rewritten module in a temp folder, its imports the same files the SDK's module imports. */
async function rewritten(): Promise<{ module: SchemaModule; schemas: number }> {
  const { text, schemas } = schemasOnFirstUse(readFileSync(SDK_SCHEMAS, "utf8"));
  const deserialize = pathToFileURL(
    join(PACKAGE_ROOT, "node_modules/@agentclientprotocol/sdk/dist/core/schema-deserialize.js"),
  ).href;
  const imports = text
    .replace('"../../core/schema-deserialize.js"', JSON.stringify(deserialize))
    .replace('"zod/v4"', JSON.stringify(import.meta.resolve("zod/v4")));
  const file = join(temp, "zod.gen.js");
  writeFileSync(file, imports);
  return { module: (await import(pathToFileURL(file).href)) as SchemaModule, schemas };
}

const lazy = await rewritten();
const names = Object.keys(original).filter((name) => /^z[A-Z]/.test(name));
const built = () => names.filter((name) => lazy.module[name]?._zod.def._cachedInner !== undefined);

test("every schema of the SDK's module is rewritten, and none is built when it is evaluated", () => {
  assert.equal(names.length, 178);
  assert.equal(lazy.schemas, names.length);
  for (const name of names) assert.equal(lazy.module[name]?._zod.def.type, "lazy", name);
  assert.deepEqual(built(), []);
});

test("a parse builds what it uses, not the rest", () => {
  const request = {
    cwd: "/work",
    mcpServers: [{ name: "a", command: "/bin/a", args: [], env: [] }],
  };
  assert.deepEqual(lazy.module.zNewSessionRequest?.safeParse(request), {
    success: true,
    data: request,
  });
  const used = built();
  assert.ok(used.includes("zNewSessionRequest"));
  assert.ok(used.includes("zMcpServer"));
  assert.ok(!used.includes("zPromptRequest"));
  assert.ok(used.length < names.length / 4, `${used.length} built`);
});

/** How many functions zod made with `new Function` (its compiled fast paths) in `run`. */
function compiledIn(run: () => void): number {
  const real = globalThis.Function;
  let made = 0;
  globalThis.Function = new Proxy(real, {
    construct(target, args, newTarget) {
      made += 1;
      return Reflect.construct(target, args, newTarget);
    },
  });
  try {
    run();
  } finally {
    globalThis.Function = real;
  }
  return made;
}

test("a schema built on first use compiles no fast path at its parse, as the SDK's own does", () => {
  const prompt = { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] };
  const parse = (module: SchemaModule) => () => {
    assert.equal(module.zPromptRequest?.safeParse(prompt).success, true);
  };
  assert.ok(compiledIn(parse(original)) > 0, "the SDK's own schema compiles its fast path");
  assert.equal(compiledIn(parse(lazy.module)), 0);
  assert.equal(compiledIn(parse(lazy.module)), 0, "nor at its next parse");
});

test("our initialize's parser compiles no fast path either, and parses as before", async () => {
  const { InitializeParams } = await import("../../src/acp/initialize-gate.js");
  const offered = { protocolVersion: 1, clientCapabilities: { terminal: true, fs: { x: 1 } } };
  let parsed: unknown;
  assert.equal(
    compiledIn(() => {
      parsed = InitializeParams.parse(offered);
    }),
    0,
  );
  assert.deepEqual(parsed, {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: true,
      auth: { terminal: false },
    },
  });
  assert.throws(() => InitializeParams.parse({ protocolVersion: 65536 }));
});

/** ACP messages as editors and agents send them, and a few that are wrong. */
const MESSAGES: unknown[] = [
  { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, terminal: true } },
  { protocolVersion: 1, clientCapabilities: { auth: { terminal: true }, _meta: { x: 1 } } },
  { protocolVersion: "1" },
  { cwd: "/w", mcpServers: [{ name: "a", command: "/bin/a", args: ["-x"], env: [] }] },
  {
    cwd: "/w",
    mcpServers: [
      { type: "http", name: "h", url: "http://127.0.0.1:1/", headers: [{ name: "a", value: "b" }] },
      { type: "sse", name: "s", url: "http://127.0.0.1:2/", headers: [] },
    ],
  },
  { cwd: "/w", mcpServers: [{ type: "http", name: "h" }] },
  { cwd: 7 },
  {
    sessionId: "s1",
    prompt: [
      { type: "text", text: "hi" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "resource_link", uri: "file:///a", name: "a" },
      { type: "resource", resource: { uri: "file:///b", text: "b", mimeType: "text/plain" } },
      { type: "audio", data: "aGk=", mimeType: "audio/wav" },
    ],
  },
  { sessionId: "s1", prompt: [{ type: "text" }] },
  { sessionId: "s1", prompt: [{ type: "video", uri: "x" }] },
  {
    sessionId: "s1",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } },
  },
  {
    sessionId: "s1",
    update: {
      sessionUpdate: "tool_call",
      toolCallId: "t",
      title: "Read",
      kind: "read",
      status: "pending",
    },
  },
  { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: 5 } },
  {
    sessionId: "s1",
    update: {
      sessionUpdate: "plan",
      entries: [{ content: "a", priority: "high", status: "pending" }],
    },
  },
  {
    sessionId: "s1",
    update: {
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "undo", description: "d" }],
    },
  },
  { sessionId: "s1", update: { sessionUpdate: "current_mode_update", currentModeId: "ask" } },
  { sessionId: "s1", update: { sessionUpdate: "custom_thing", anything: [1, 2] } },
  { sessionId: "s1", modeId: "ask" },
  { sessionId: "s1", configId: "model", value: "a/b" },
  {
    sessionId: "s1",
    toolCall: { toolCallId: "t" },
    options: [{ optionId: "o", name: "Allow", kind: "allow_once" }],
  },
  { outcome: { outcome: "selected", optionId: "o" } },
  { outcome: { outcome: "cancelled" } },
  {
    sessionId: "s1",
    command: "ls",
    args: ["-l"],
    env: [{ name: "A", value: "1" }],
    cwd: "/w",
    outputByteLimit: 100,
  },
  { sessionId: "s1", path: "/a", line: -1, limit: 4294967296 },
  { sessionId: "s1", path: "/a", line: 1.5 },
  { stopReason: "end_turn", _meta: "not an object" },
  {
    sessions: [{ sessionId: "s", cwd: "/w", title: null, updatedAt: "2026-01-01T00:00:00Z" }],
    nextCursor: null,
  },
  { methodId: "setup" },
  { mode: "form", message: "m", requestedSchema: { type: "object", properties: {} } },
  null,
  [],
  "text",
  42,
  {},
];

/** The same outcome: success, output and issues, or the same exception. */
function sameParse(name: string, value: unknown): void {
  const outcome = (module: SchemaModule) => {
    try {
      const result = module[name]?.safeParse(value);
      return { result: JSON.parse(JSON.stringify(result ?? null)) as unknown };
    } catch (error) {
      return { thrown: String(error) };
    }
  };
  assert.deepEqual(outcome(lazy.module), outcome(original), `${name} on ${JSON.stringify(value)}`);
}

test("each schema parses every message as the SDK's own: output and issues alike", () => {
  for (const name of names) for (const message of MESSAGES) sameParse(name, message);
});

test("each schema parses generated values as the SDK's own (fast-check)", () => {
  const keys = fc.constantFrom(
    ...["type", "sessionId", "cwd", "mcpServers", "prompt", "text", "uri", "name", "mimeType"],
    ...["data", "update", "sessionUpdate", "content", "toolCallId", "status", "kind", "_meta"],
    ...["protocolVersion", "clientCapabilities", "command", "args", "env", "url", "headers"],
    ...["outcome", "optionId", "modeId", "value", "entries", "priority", "resource", "title"],
  );
  const tags = fc.constantFrom(
    ...["text", "image", "audio", "resource", "resource_link", "http", "sse", "stdio"],
    ...["agent_message_chunk", "tool_call", "tool_call_update", "plan", "selected"],
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.oneof(tags, fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(keys, tie("value"), { maxKeys: 6 }),
    ),
  }));
  fc.assert(
    fc.property(value, fc.constantFrom(...names), (generated, name) => {
      sameParse(name, generated);
    }),
    { numRuns: 4000 },
  );
});

const SDK_GUARDS = join(
  PACKAGE_ROOT,
  "node_modules/@agentclientprotocol/sdk/dist/v1/schema/guards.gen.js",
);
type GuardModule = Record<string, Record<string, (value: unknown) => boolean>>;

/** The guards module rewritten, beside the rewritten schemas module it imports (`rewritten`). */
async function rewrittenGuards(): Promise<{ module: GuardModule; schemas: number }> {
  const { text, schemas } = guardsOnFirstUse(readFileSync(SDK_GUARDS, "utf8"));
  const file = join(temp, "guards.gen.js");
  writeFileSync(file, text.replace('"zod/v4"', JSON.stringify(import.meta.resolve("zod/v4"))));
  return { module: (await import(pathToFileURL(file).href)) as GuardModule, schemas };
}

test("the SDK's guards: each of their 13 schemas built on first use, each guard as the SDK's", async () => {
  const guards = await rewrittenGuards();
  assert.equal(guards.schemas, 13);
  const own = (await import(pathToFileURL(SDK_GUARDS).href)) as GuardModule;
  const values: unknown[] = [
    ...MESSAGES,
    { mode: "url", message: "m", url: "https://x/", elicitationId: "e" },
    { mode: "custom", message: "m", sessionId: "s" },
    { type: "string", title: "t" },
    { type: "number", minimum: 1 },
    { type: "integer" },
    { type: "boolean", default: true },
    { type: "array", items: { type: "string", enum: ["a"] } },
    { type: "string", enum: ["a"] },
    { anyOf: [{ const: "a", title: "A" }] },
    { action: "accept", content: { a: 1 } },
    { action: "decline" },
    { action: "cancel" },
    { action: "other" },
  ];
  const groups = Object.keys(own).filter((name) => typeof own[name] === "object");
  assert.ok(groups.length >= 4, groups.join());
  for (const group of groups)
    for (const [name, guard] of Object.entries(own[group] ?? {}))
      for (const value of values)
        assert.equal(
          guards.module[group]?.[name]?.(value),
          guard(value),
          `${group}.${name} on ${JSON.stringify(value)}`,
        );
});

test("the ACP bundles hold the SDK's schemas rewritten", () => {
  for (const bundle of ["acp.cjs", "acp.js"]) {
    const text = readFileSync(join(PACKAGE_ROOT, "dist", "child", bundle), "utf8");
    // The guards' schemas too: each built by a lazy one's first parse (or left out), none at load.
    const guards = [...text.matchAll(/\bzGuard\w+ = ([^\n]*)/g)].map((m) => m[1] ?? "");
    for (const built of guards)
      assert.match(built, /^\/\* @__PURE__ \*\/ (?:[\w$]+\.)?lazy\(\(\) =>/, bundle);
    // esbuild calls zod's functions by their own names: `lazy(...)`, `object(...)`.
    assert.match(
      text,
      /\bzNewSessionRequest\d* = \/\* @__PURE__ \*\/ (?:[\w$]+\.)?lazy\(\(\) =>/,
      bundle,
    );
    assert.doesNotMatch(text, /\bzNewSessionRequest\d* = (?:[\w$]+\.)?object\(/, bundle);
  }
});

test("our own session/fork params are built at the first fork, not when the agent is made", async () => {
  const { ForkParams, forkParamsParser } = await import("../../src/acp/fork-params.js");
  const { acpAgent } = await import("../../src/acp/agent.js");
  const { isBuilt, isLazy } = await import("../../src/protocol/lazy.js");
  const box = mkdtempSync(join(temp, "agent-"));
  acpAgent({ cwd: box, home: join(box, ".mc"), env: {} });
  assert.ok(isLazy(ForkParams));
  assert.equal(isBuilt(ForkParams), false);
  const params = {
    sessionId: "s",
    cwd: "/w",
    mcpServers: [{ name: "a", command: "c", args: [], env: [] }],
  };
  assert.deepEqual(forkParamsParser.parse(params), params);
  assert.equal(isBuilt(ForkParams), true);
  assert.throws(() => forkParamsParser.parse({ sessionId: 1, cwd: "/w" }));
});
