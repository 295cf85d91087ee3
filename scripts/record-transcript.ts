/**
 * Records test/golden/protocol-transcript.jsonl: real frames of the real child (bin/mc-agent.js
 * and its bundle, `npm run build` first) in a temp MC_HOME, with the kit's loopback Chat
 * Completions server as the model, covering every public method (request and result), error
 * responses, the turn.event notification with every event type, and every turn result status.
 * test/protocol/codegen.test.ts decodes it with quicktype-generated Python and fails when the
 * protocol has a method or event type the transcript lacks: re-record with `npm run transcript`.
 *
 * One line per frame, in wire order: {"from": "client" | "child", "method"?, "frame"}, where a
 * child's response carries the method of the request it answers.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  contextTooLong,
  custom,
  fail,
  held,
  type Script,
  startChatServer,
  text,
  toolCall,
} from "../src/conformance/chat-server.js";
import { nextId, sandbox, TestChild } from "../src/conformance/harness.js";
import { turnChildOptions, writeTurnHome } from "../src/conformance/turn-world.js";
import { CAPABILITIES } from "../src/protocol/capabilities.js";

type Json = Record<string, unknown>;

/** What the recording's temp folder is called in the file (its real name is random). */
const STABLE_ROOT = "/tmp/mc-transcript";

/** The OpenAI-style model list `model.refresh` reads from `<base>/models`. */
const modelList = (): Script =>
  custom(({ res }) => {
    const body = JSON.stringify({ object: "list", data: [{ id: "kit-1", object: "model" }] });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });

async function turn(child: TestChild, input: string, permissions?: string): Promise<Json> {
  const params = permissions ? { input, permissions } : { input };
  const frame = await child.request("turn.start", params, nextId("turn"), 60_000);
  if (!frame.result) throw new Error(`turn failed: ${JSON.stringify(frame.error)}`);
  return frame.result;
}

/** Runs a turn that asks one approval, answered with `decision`. */
async function approvedTurn(child: TestChild, input: string, decision: string): Promise<void> {
  const id = nextId("turn");
  const asked = child.waitFor(
    (f) => (f as unknown as Json).method === "turn.event" && isApproval(f as unknown as Json),
    60_000,
  );
  const done = child.request("turn.start", { input, permissions: "ask" }, id, 60_000);
  const approval = ((await asked) as unknown as Json).params as { event: { approval_id: string } };
  await child.request("turn.approve", { approval_id: approval.event.approval_id, decision });
  await done;
}

const isApproval = (frame: Json) =>
  (frame.params as { event?: { type?: string } }).event?.type === "approval_requested";

async function session(child: TestChild, server: Awaited<ReturnType<typeof startChatServer>>) {
  const catalog = await child.call("model.catalog", {});
  await child.call("model.catalog.status", {});
  await child.call("model.select", {
    model: "kit/kit-1",
    effort: null,
    catalog_revision: catalog.revision,
  });
  const { session: created } = await child.call("session.create", {});
  server.reply(text("Hello there.", { reasoning: "The user greets me." }));
  await turn(child, "Hello");
  server.reply(toolCall("write_file", { path: "notes.txt", content: "one\ntwo\n" }));
  server.reply(text("Wrote it."));
  await approvedTurn(child, "Write notes.txt", "allow_once");
  server.reply(toolCall("shell", { command: "echo out; echo err >&2; exit 3" }));
  server.reply(text("Ran it."));
  await approvedTurn(child, "Run a command", "allow_session");
  server.reply(fail(429, { retryAfter: 1 }), text("Recovered."));
  await turn(child, "Try again", "read_only");
  server.reply(contextTooLong(), text("Summary: greetings, a file, a command."), text("Done."));
  await turn(child, "Go on");
  await interruptedTurn(child, server);
  await steeredTurn(child, server);
  server.reply(fail(401));
  await turn(child, "Fail please");
  server.reply(fail(404, { body: { error: { message: "model 'kit-1' is not loaded" } } }));
  await turn(child, "Fail with the provider's words");
  await sandboxedTurn(child, server);
  await rules(child, server);
  // A plan, then a subagent (its events come wrapped in subagent_event).
  const plan = [
    { step: "Look around", status: "completed" },
    { step: "Answer", status: "in_progress" },
  ];
  server.reply(toolCall("update_plan", { explanation: "Two steps", plan }), text("Planned."));
  await turn(child, "Plan it");
  server.reply(
    toolCall("agent", { description: "Map the code", prompt: "List the files." }),
    text("There is notes.txt."),
    text("The helper found notes.txt."),
  );
  await turn(child, "Send a helper");
  // The helper's own history, through session.subagent_history (named by its subagent_id).
  const wrapped = child.frames.find((f) => {
    const params = (f as unknown as Json).params as { event?: { type?: string } } | undefined;
    return params?.event?.type === "subagent_event";
  }) as unknown as Json | undefined;
  if (!wrapped) throw new Error("the helper sent no subagent_event");
  const subagentId = (wrapped.params as { event: { subagent_id: string } }).event.subagent_id;
  await child.call("session.subagent_history", { id: created.id, subagent_id: subagentId });
  return created.id;
}

/** A `sandboxed` turn (bubblewrap here) whose shell call runs inside the sandbox. */
async function sandboxedTurn(
  child: TestChild,
  server: Awaited<ReturnType<typeof startChatServer>>,
): Promise<void> {
  server.reply(toolCall("shell", { command: "echo boxed" }));
  server.reply(text("Ran it in the sandbox."));
  await turn(child, "Run it sandboxed", "sandboxed");
}

/** A rule kept by allow_always, then approval.rules: list, remove, clear, a bad remove. */
async function rules(child: TestChild, server: Awaited<ReturnType<typeof startChatServer>>) {
  server.reply(toolCall("shell", { command: "echo tested" }));
  server.reply(text("Tested."));
  await approvedTurn(child, "Test it", "allow_always");
  const listed = await child.call("approval.rules", { action: "list" });
  const kept = (listed.rules as { id: string }[])[0];
  if (!kept) throw new Error("allow_always kept no rule");
  await child.call("approval.rules", { action: "remove", rule_id: kept.id });
  await child.request("approval.rules", { action: "remove", rule_id: kept.id });
  await child.call("approval.rules", { action: "clear" });
}

async function interruptedTurn(
  child: TestChild,
  server: Awaited<ReturnType<typeof startChatServer>>,
): Promise<void> {
  let release = () => {};
  const door = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.reply(held(text("A long answer that never ends."), 3, door));
  const id = nextId("turn");
  const delta = child.waitFor(
    (f) => (f as unknown as Json).method === "turn.event" && hasDelta(f),
    60_000,
  );
  const done = child.request("turn.start", { input: "Talk" }, id, 60_000);
  await delta;
  // A steer the interrupt leaves undelivered: the result's undelivered_steers holds it.
  await child.request("turn.steer", { request_id: id, input: "Shorter, please." });
  await child.request("turn.interrupt", { request_id: id });
  await done;
  release();
}

/** A steer during the final answer: steer_applied, then one more model call. */
async function steeredTurn(
  child: TestChild,
  server: Awaited<ReturnType<typeof startChatServer>>,
): Promise<void> {
  let release = () => {};
  const door = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.reply(held(text("A first answer."), 3, door), text("A shorter one."));
  const id = nextId("turn");
  const delta = child.waitFor(
    (f) => (f as unknown as Json).method === "turn.event" && hasDelta(f),
    60_000,
  );
  const done = child.request("turn.start", { input: "Answer" }, id, 60_000);
  await delta;
  await child.request("turn.steer", { request_id: id, input: "Shorter." });
  release();
  await done;
}

const hasDelta = (frame: unknown) =>
  ((frame as Json).params as { event?: { type?: string } }).event?.type === "message_delta";

/** model.refresh cancelled while the listing is held, then one that completes. */
async function refreshes(child: TestChild, server: Awaited<ReturnType<typeof startChatServer>>) {
  let release = () => {};
  const door = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = () => {};
  const arrived = new Promise<void>((resolve) => {
    asked = resolve;
  });
  server.reply(
    custom(async (exchange) => {
      asked();
      await door;
      exchange.res.destroy();
    }),
  );
  const id = nextId("refresh");
  const refresh = child.request("model.refresh", { provider: "kit" }, id, 30_000);
  await arrived;
  await child.request("operation.cancel", { request_id: id });
  await refresh;
  release();
  server.reply(modelList());
  await child.call("model.refresh", { provider: "kit" });
}

/** Errors: no such session, approval, turn or method. */
async function errors(child: TestChild): Promise<void> {
  await child.request("session.open", { id: "0000000000000000000000000000" });
  await child.request("turn.approve", { approval_id: "nope", decision: "deny" });
  await child.request("turn.interrupt", { request_id: "nope" });
  await child.request("no.such.method", {});
  await child.request("session.history", { id: 7 });
}

function framesOf(child: TestChild, sent: Json[]): Json[] {
  const methods = new Map<string, string>();
  const out: Json[] = [];
  let line = 0;
  for (const entry of child.transcript) {
    if (entry.startsWith(">> ")) {
      const frame = sent.shift() as Json;
      if (typeof frame.id === "string" && typeof frame.method === "string")
        methods.set(frame.id, frame.method);
      out.push({ from: "client", frame });
    } else {
      const frame = JSON.parse(child.rawLines[line++] as string) as Json;
      const method = typeof frame.id === "string" ? methods.get(frame.id) : undefined;
      out.push(
        method && !frame.method ? { from: "child", method, frame } : { from: "child", frame },
      );
    }
  }
  return out;
}

/** A child whose every sent frame is kept whole (the harness clips long ones in its log). */
function recordedChild(box: ReturnType<typeof sandbox>): { child: TestChild; sent: Json[] } {
  const child = new TestChild({ cwd: box.workspace, home: box.home, ...turnChildOptions() });
  const sent: Json[] = [];
  const send = child.send.bind(child);
  child.send = (frame: string | object) => {
    sent.push(typeof frame === "string" ? JSON.parse(frame) : (frame as Json));
    send(frame);
  };
  return { child, sent };
}

/**
 * `checkpoint_failed`: a home whose `checkpoints` is a file, where no shadow repository can be
 * made, so the turn goes on without its checkpoint and says so.
 */
async function checkpointFailedChild(
  server: Awaited<ReturnType<typeof startChatServer>>,
): Promise<{ child: TestChild; sent: Json[] }> {
  const box = sandbox("mc-transcript-");
  writeTurnHome(box, server.baseUrl, { contextWindow: 128_000 });
  writeFileSync(join(box.home, "checkpoints"), "not a folder\n");
  const recorded = recordedChild(box);
  try {
    await recorded.child.initialize(["session.create", "turn"]);
    await recorded.child.call("session.create", {});
    server.reply(text("No checkpoint this time."));
    await turn(recorded.child, "Hello again");
    await recorded.child.close();
  } finally {
    box.cleanup();
  }
  return recorded;
}

/**
 * `mcp.status` and `mcp.changed`: a home of its own with a disabled server and one that never
 * answers (it fails after its 200 ms startup timeout), so that no real server is needed.
 */
async function mcpChild(): Promise<{ child: TestChild; sent: Json[] }> {
  const box = sandbox("mc-transcript-");
  const hang = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
  writeFileSync(
    join(box.home, "config.json"),
    JSON.stringify({
      mcp_servers: {
        stuck: { ...hang, startup_timeout_ms: 200 },
        off: { url: "http://127.0.0.1:9/mcp", enabled: false },
      },
    }),
  );
  const recorded = recordedChild(box);
  try {
    await recorded.child.initialize(["mcp"]);
    await recorded.child.call("mcp.status", {});
    const isChanged = (f: object) => (f as { method?: string }).method === "mcp.changed";
    if (!recorded.child.frames.some(isChanged)) await recorded.child.waitFor(isChanged);
    await recorded.child.call("mcp.status", {});
    await recorded.child.close();
  } finally {
    box.cleanup();
  }
  return recorded;
}

/** A PostToolUse hook on `update_plan` only: the plan turn shows hook_started and hook_done. */
function withPlanHook(home: string): void {
  const file = join(home, "config.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.hooks = {
    PostToolUse: [{ matcher: "update_plan", hooks: [{ type: "command", command: "true" }] }],
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
}

async function record(target: string): Promise<void> {
  const box = sandbox("mc-transcript-");
  const server = await startChatServer();
  const lines: Json[] = [];
  try {
    writeTurnHome(box, server.baseUrl, { contextWindow: 128_000 });
    withPlanHook(box.home);
    const first = recordedChild(box);
    await first.child.initialize([...CAPABILITIES]);
    await first.child.call("status", {});
    const id = await session(first.child, server);
    await refreshes(first.child, server);
    await first.child.call("session.list", {});
    await first.child.call("session.discover", {});
    await first.child.call("session.history", { id });
    // One record read whole (small, so one chunk): the method a stub's record is read by.
    await first.child.call("session.record", { id, index: 2 });
    await first.child.call("settings.check", {});
    // A custom command of the workspace (docs/skills.md), as commands.list lists it.
    mkdirSync(join(box.workspace, ".mc", "commands"), { recursive: true });
    writeFileSync(
      join(box.workspace, ".mc", "commands", "fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix issue $1.\n",
    );
    await first.child.call("commands.list", {});
    await first.child.call("workspace.trust", { trusted: true });
    await first.child.call("model.cached", {});
    await errors(first.child);
    await first.child.call("status", {});
    await first.child.close();
    const second = recordedChild(box);
    await second.child.initialize([...CAPABILITIES]);
    await second.child.call("session.open", { id });
    // A dry run of undoing the whole session from its first turn (it changes nothing).
    const page = await second.child.call("session.history", { id });
    const firstTurn = page.events.find((event) => event.type === "turn_start");
    await second.child.call("turn.revert", {
      session_id: id,
      turn_id: String(firstTurn?.turn_id),
      dry_run: true,
    });
    const { session: forked } = await second.child.call("session.fork", { id });
    await second.child.call("session.search", { query: "notes" });
    await second.child.call("session.rename", { id: forked.id, title: "A fork" });
    await second.child.call("session.usage", { id });
    await second.child.call("session.archive", { id: forked.id });
    await second.child.call("session.archived", {});
    await second.child.call("session.unarchive", { id: forked.id });
    await second.child.call("session.delete", { id: forked.id });
    await second.child.request("shutdown", {});
    await second.child.exited;
    const third = await mcpChild();
    const fourth = await checkpointFailedChild(server);
    lines.push(
      ...framesOf(first.child, first.sent),
      ...framesOf(second.child, second.sent),
      ...framesOf(third.child, third.sent),
      ...framesOf(fourth.child, fourth.sent),
    );
  } finally {
    await server.close();
    box.cleanup();
  }
  // The temp folder's name differs per run: a fixed one keeps the golden file's diff small.
  const json = lines.map((line) => `${JSON.stringify(line)}\n`).join("");
  writeFileSync(target, json.split(box.root).join(STABLE_ROOT));
  console.error(`wrote ${target} (${lines.length} frames)`);
}

await record(process.argv[2] ?? "test/golden/protocol-transcript.jsonl");
