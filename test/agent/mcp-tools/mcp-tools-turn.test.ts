import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Decision, TurnEventBody } from "../../../src/protocol/schemas/turns.js";
import { TURN_EXTENSION } from "../../../src/protocol/schemas/turns.js";
import {
  everythingServer,
  fixtureServer,
  mcpTurn,
  memoryServer,
  offeredNames,
  type SdkSource,
  sdkSource,
  type TurnControl,
  toolOutput,
} from "./mcp-turn.js";

const call = (call_id: string, name: string, args: unknown) => ({
  calls: [{ call_id, name, arguments: JSON.stringify(args) }],
});
const done = { text: ["Done."] };

function ofType<T extends TurnEventBody["type"]>(events: TurnEventBody[], type: T) {
  return events.filter((e): e is Extract<TurnEventBody, { type: T }> => e.type === type);
}

/** The event is emitted before the engine waits for the answer: decide once it does. */
function decideWhenPending(control: TurnControl, id: string, decision: Decision): void {
  const tryIt = () => {
    if (control.approvals.decide(id, decision) === "missing") setTimeout(tryIt, 5);
  };
  setTimeout(tryIt, 0);
}

function waitFor(check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() - started > 30_000) return reject(new Error(`never: ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

describe("MCP tools offered to the model (real servers: everything, memory)", () => {
  let source: SdkSource;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mc-mcp-real-"));
    source = await sdkSource({
      everything: everythingServer(),
      memory: memoryServer(join(dir, "memory.jsonl")),
    });
  });
  after(async () => {
    await source.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("the tools are offered namespaced with their schemas, and called", async () => {
    const run = await mcpTurn({
      source,
      permissions: "full_access",
      replies: [
        call("c1", "mcp__everything__echo", { message: "hello mcp" }),
        call("c2", "mcp__memory__create_entities", {
          entities: [{ name: "Ada", entityType: "person", observations: ["wrote code"] }],
        }),
        call("c3", "mcp__everything__get-tiny-image", {}),
        done,
      ],
    });
    assert.equal(run.result.status, "completed");
    const first = run.requests[0] as Record<string, unknown>;
    const names = offeredNames(first);
    assert.ok(names.includes("read_file") && names.includes("shell"), "built-ins still there");
    assert.ok(names.includes("mcp__everything__echo"));
    assert.ok(names.includes("mcp__memory__read_graph"));
    assert.ok(!names.includes("mcp_search"), "few tools: no deferred loading");
    const echo = (first.tools as { name: string; parameters: Record<string, unknown> }[]).find(
      (t) => t.name === "mcp__everything__echo",
    );
    assert.deepEqual(Object.keys(echo?.parameters.properties as object), ["message"]);
    assert.equal(echo?.parameters.$schema, undefined);
    const last = run.requests[3] as Record<string, unknown>;
    assert.match(toolOutput(last, "c1") ?? "", /hello mcp/);
    assert.match(toolOutput(last, "c2") ?? "", /Ada/);
    assert.match(toolOutput(last, "c3") ?? "", /\[image: image\/png, \d+ (bytes|KiB); not shown\]/);
    assert.match(readFileSync(join(dir, "memory.jsonl"), "utf8"), /Ada/, "the server did it");
    const calls = ofType(run.events, "tool_call");
    assert.deepEqual(
      calls.map((c) => c.tool),
      ["mcp__everything__echo", "mcp__memory__create_entities", "mcp__everything__get-tiny-image"],
    );
    assert.deepEqual(
      ofType(run.events, "tool_done").map((d) => d.status),
      ["completed", "completed", "completed"],
    );
  });

  test("invalid arguments against the schema are a tool error; the turn goes on", async () => {
    const run = await mcpTurn({
      source,
      permissions: "full_access",
      replies: [call("c1", "mcp__everything__get-sum", { a: "one", b: 2 }), done],
    });
    assert.equal(run.result.status, "completed");
    const output = toolOutput(run.requests[1] as Record<string, unknown>, "c1") ?? "";
    assert.match(output, /^invalid input: /);
    assert.deepEqual(
      ofType(run.events, "tool_done").map((d) => d.status),
      ["failed"],
    );
    const sentCalls = (source.sent.get("everything") ?? []).filter(
      (m) => "method" in m && m.method === "tools/call" && JSON.stringify(m).includes('"one"'),
    );
    assert.equal(sentCalls.length, 0, "never sent to the server");
  });

  test("a slow call interrupted: the SDK sends notifications/cancelled for it", async () => {
    const run = await mcpTurn({
      source,
      permissions: "full_access",
      replies: [
        call("c1", "mcp__everything__trigger-long-running-operation", { duration: 60, steps: 2 }),
      ],
      onEvent: (event, control) => {
        if (event.type === "tool_call") setTimeout(() => control.interrupt(), 200);
      },
    });
    assert.equal(run.result.status, "interrupted");
    assert.deepEqual(
      ofType(run.events, "tool_done").map((d) => d.status),
      ["interrupted"],
    );
    const sent = source.sent.get("everything") ?? [];
    const request = sent.find(
      (m) =>
        "method" in m &&
        m.method === "tools/call" &&
        (m.params as { name: string }).name === "trigger-long-running-operation",
    ) as { id: number } | undefined;
    assert.ok(request, "the call was sent");
    const cancel = sent.find((m) => "method" in m && m.method === "notifications/cancelled");
    assert.ok(cancel, "a cancel notification was written to the server");
    assert.equal(
      (cancel as unknown as { params: { requestId: number } }).params.requestId,
      request.id,
    );
  });
});

describe("MCP tools: permissions, errors, bounds (generated server)", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mc-mcp-gen-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("an isError result and a cancelled slow call, seen by the server itself", async () => {
    const cancelFile = join(dir, "cancelled");
    const source = await sdkSource({
      gen: fixtureServer(3, { MC_TEST_MCP_CANCEL_FILE: cancelFile }),
    });
    try {
      const failing = await mcpTurn({
        source,
        permissions: "full_access",
        replies: [call("c1", "mcp__gen__broken", {}), done],
      });
      assert.equal(failing.result.status, "completed");
      const output = toolOutput(failing.requests[1] as Record<string, unknown>, "c1");
      assert.equal(output, "the broken tool broke\n[the tool reported an error]");
      assert.deepEqual(
        ofType(failing.events, "tool_done").map((d) => d.status),
        ["failed"],
      );

      const slow = await mcpTurn({
        source,
        permissions: "full_access",
        replies: [call("c1", "mcp__gen__slow", {})],
        onEvent: (event, control) => {
          if (event.type === "tool_call") setTimeout(() => control.interrupt(), 200);
        },
      });
      assert.equal(slow.result.status, "interrupted");
      await waitFor(() => existsSync(cancelFile), "the server saw the cancellation");
      assert.match(readFileSync(cancelFile, "utf8"), /^cancelled \d+$/);
    } finally {
      await source.close();
    }
  });

  test("a server killed mid-call: a tool error, and the turn goes on", async () => {
    const source = await sdkSource({ gen: fixtureServer(3) });
    try {
      const run = await mcpTurn({
        source,
        permissions: "full_access",
        replies: [call("c1", "mcp__gen__slow", {}), done],
        onEvent: (event) => {
          if (event.type === "tool_call")
            setTimeout(() => process.kill(source.pid("gen") as number, "SIGKILL"), 100);
        },
      });
      assert.equal(run.result.status, "completed");
      assert.deepEqual(
        ofType(run.events, "tool_done").map((d) => d.status),
        ["failed"],
      );
      const output = toolOutput(run.requests[1] as Record<string, unknown>, "c1") ?? "";
      assert.match(output, /^the MCP server "gen" /);
      assert.ok(!output.includes(process.execPath), "no command line");
    } finally {
      await source.close().catch(() => {});
    }
  });

  test("read_only offers only tools hinted read-only; others are tool errors", async () => {
    const source = await sdkSource({ gen: fixtureServer(3) });
    try {
      const run = await mcpTurn({
        source,
        permissions: "read_only",
        replies: [
          call("c1", "mcp__gen__peek", {}),
          call("c2", "mcp__gen__tool_000", { word: "x" }),
          done,
        ],
      });
      const names = offeredNames(run.requests[0] as Record<string, unknown>);
      assert.ok(names.includes("mcp__gen__peek"));
      assert.ok(!names.includes("mcp__gen__tool_000") && !names.includes("mcp__gen__broken"));
      assert.equal(ofType(run.events, "approval_requested").length, 0, "no question");
      assert.equal(toolOutput(run.requests[1] as Record<string, unknown>, "c1"), "peeked");
      assert.match(
        toolOutput(run.requests[2] as Record<string, unknown>, "c2") ?? "",
        /not available: its MCP server is not ready, or the current permissions do not offer it/,
      );
      assert.deepEqual(
        ofType(run.events, "tool_call").map((c) => c.tool),
        ["mcp__gen__peek", "mcp__gen__tool_000"],
      );
    } finally {
      await source.close();
    }
  });

  test("ask: every call asks (a read-only hint too); allow_always keeps a rule for that tool", async () => {
    const source = await sdkSource({ gen: fixtureServer(3) });
    const home = await mkdtemp(join(tmpdir(), "mc-mcp-home-"));
    const workspace = await mkdtemp(join(tmpdir(), "mc-mcp-ws-"));
    try {
      const asked: Extract<TurnEventBody, { type: "approval_requested" }>[] = [];
      const first = await mcpTurn({
        source,
        permissions: "ask",
        home,
        workspace,
        replies: [
          call("c1", "mcp__gen__peek", {}),
          call("c2", "mcp__gen__tool_001", { word: "yes" }),
          call("c3", "mcp__gen__tool_002", { word: "no" }),
          done,
        ],
        onEvent: (event, control) => {
          if (event.type !== "approval_requested") return;
          asked.push(event);
          const decision =
            asked.length === 1 ? "allow_once" : asked.length === 2 ? "allow_always" : "deny";
          decideWhenPending(control, event.approval_id, decision);
        },
      });
      assert.equal(first.result.status, "completed");
      assert.equal(asked.length, 3);
      assert.equal(asked[1]?.kind, "command");
      assert.equal(asked[1]?.command, 'mcp__gen__tool_001 {"word":"yes"}');
      assert.deepEqual(asked[1]?.rule, {
        tool: "mcp",
        name: "mcp__gen__tool_001",
        text: "the MCP tool mcp__gen__tool_001",
      });
      assert.deepEqual(
        ofType(first.events, "tool_done").map((d) => d.status),
        ["completed", "completed", "denied"],
      );
      // The kept rule: the next turn calls tool_001 without a question, tool_002 still asks.
      const again: string[] = [];
      const second = await mcpTurn({
        source,
        permissions: "ask",
        home,
        workspace,
        replies: [
          call("c1", "mcp__gen__tool_001", { word: "again" }),
          call("c2", "mcp__gen__tool_002", { word: "x" }),
          done,
        ],
        onEvent: (event, control) => {
          if (event.type !== "approval_requested") return;
          again.push(event.command ?? "");
          decideWhenPending(control, event.approval_id, "deny");
        },
      });
      assert.deepEqual(again, ['mcp__gen__tool_002 {"word":"x"}']);
      assert.equal(
        toolOutput(second.requests[1] as Record<string, unknown>, "c1"),
        "tool_001 got again",
      );
    } finally {
      await source.close();
      await rm(home, { recursive: true, force: true });
      await rm(workspace, { recursive: true, force: true });
    }
  });

  test("a result past tool_output_bytes keeps its head and tail within the bound", async () => {
    const source = await sdkSource({ gen: fixtureServer(1) });
    const bound = TURN_EXTENSION.tool_output_bytes;
    try {
      const run = await mcpTurn({
        source,
        permissions: "full_access",
        replies: [
          call("c1", "mcp__gen__big", { bytes: bound - 160 }),
          call("c2", "mcp__gen__big", { bytes: bound * 4 }),
          done,
        ],
      });
      const whole = toolOutput(run.requests[1] as Record<string, unknown>, "c1") ?? "";
      assert.equal(Buffer.byteLength(whole), bound - 160, "at the capacity: whole");
      const cut = toolOutput(run.requests[2] as Record<string, unknown>, "c2") ?? "";
      assert.ok(Buffer.byteLength(cut) <= bound, "within tool_output_bytes");
      assert.match(cut, /^A+\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\nZ+$/);
    } finally {
      await source.close();
    }
  });

  test("deferred loading: 100 tools are not sent; mcp_search finds and loads one, then it is called", async () => {
    const source = await sdkSource({ gen: fixtureServer(100) });
    try {
      const run = await mcpTurn({
        source,
        permissions: "full_access",
        replies: [
          call("c1", "mcp_search", { query: "generated number 42" }),
          call("c2", "mcp_search", { load: ["mcp__gen__tool_042"] }),
          call("c3", "mcp__gen__tool_042", { word: "found" }),
          done,
        ],
      });
      assert.equal(run.result.status, "completed");
      const [first, second, third, fourth] = run.requests as Record<string, unknown>[];
      const initial = offeredNames(first as Record<string, unknown>);
      assert.ok(initial.includes("mcp_search"));
      assert.equal(initial.filter((n) => n.startsWith("mcp__")).length, 0, "none sent one by one");
      const found = toolOutput(second as Record<string, unknown>, "c1") ?? "";
      assert.match(found.split("\n")[0] ?? "", /^mcp__gen__tool_042: Generated tool number 42/);
      assert.ok(found.split("\n").length <= 10);
      assert.ok(!offeredNames(second as Record<string, unknown>).includes("mcp__gen__tool_042"));
      assert.match(
        toolOutput(third as Record<string, unknown>, "c2") ?? "",
        /^Loaded: mcp__gen__tool_042/,
      );
      assert.ok(
        offeredNames(third as Record<string, unknown>).includes("mcp__gen__tool_042"),
        "loaded for the next step",
      );
      assert.equal(toolOutput(fourth as Record<string, unknown>, "c3"), "tool_042 got found");
      assert.deepEqual(
        ofType(run.events, "tool_call").map((c) => c.tool),
        ["mcp_search", "mcp_search", "mcp__gen__tool_042"],
      );
    } finally {
      await source.close();
    }
  });
});
