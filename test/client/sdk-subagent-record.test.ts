import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import {
  AgentClient,
  type Capability,
  ClientError,
  isRecordStub,
  type SessionEvent,
  type TurnEventParams,
} from "../../src/client/index.js";
import {
  type ChatServer,
  call,
  startChatServer,
  text,
  toolCalls,
} from "../../src/conformance/chat-server.js";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { turnChildOptions, writeTurnHome } from "../../src/conformance/turn-world.js";
import { within } from "../helpers/fakes.js";

const CAPS: Capability[] = ["turn", "session.create", "session.record", "subagents"];

/**
 * `client.subagentRecord` against the real child: a subagent's record over a history page comes
 * as a stub in `subagentHistory`, and is read whole through `session.record` with `subagent_id`
 * (docs/turns.md section 11).
 */
describe("SDK: a subagent's oversized record", () => {
  let box: Sandbox | undefined;
  let server: ChatServer | undefined;
  const clients: AgentClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => within(c.close())));
    await server?.close();
    box?.cleanup();
    box = server = undefined;
  });

  const spawn = async (capabilities: Capability[]) => {
    const client = await within(
      AgentClient.spawn({
        cwd: (box as Sandbox).workspace,
        env: {
          PATH: process.env.PATH,
          HOME: (box as Sandbox).home,
          MC_HOME: (box as Sandbox).home,
          ...turnChildOptions().env,
        },
        capabilities,
      }),
      60_000,
    );
    clients.push(client);
    return client;
  };

  it("subagentRecord reads the stub's record whole; without subagents it is not sent", async () => {
    box = sandbox("mc-sdk-subrecord-");
    server = await startChatServer();
    writeTurnHome(box, server.baseUrl);
    const client = await spawn(CAPS);
    const { session } = await client.call("session.create", {});
    const prompt = `look at ${"é".repeat(30_000)}`; // 60 KB of UTF-8: over a history page
    server.reply(
      toolCalls([call("agent", { description: "Look", prompt }, "c_1")]),
      text("Looked."),
      text("Done."),
    );
    const events: TurnEventParams[] = [];
    const result = await within(client.turn("Delegate", { onEvent: (e) => events.push(e) }));
    assert.equal(result.status, "completed");
    const agentCall = events.find((e) => e.event.type === "tool_call")?.event as {
      item_id: string;
    };
    const sub = agentCall.item_id;

    const records: SessionEvent[] = [];
    for await (const page of client.subagentHistory(session.id, sub)) records.push(...page);
    const stub = records.find(isRecordStub) as (SessionEvent & { index: number }) | undefined;
    assert.ok(stub, "the subagent's prompt is a stub in its history");
    const whole = await within(client.subagentRecord(session.id, sub, stub.index));
    const file = join(box.home, "sessions", `${session.id}.${sub}.jsonl`);
    const line = readFileSync(file, "utf8").split("\n")[stub.index] as string;
    assert.deepEqual(whole, JSON.parse(line), "the derived history's record, whole");
    assert.equal((whole as { text?: string }).text, prompt);
    // The session's own record at that index is another one.
    const own = await within(client.record(session.id, stub.index));
    assert.notDeepEqual(own, whole);

    // A child without `subagents`: the SDK refuses before sending anything.
    const plain = await spawn(["turn", "session.create", "session.record"]);
    await assert.rejects(
      plain.subagentRecord(session.id, sub, stub.index),
      (error: unknown) => error instanceof ClientError && error.code === "not_negotiated",
    );
  });
});
