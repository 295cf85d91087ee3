import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { AgentClient, RemoteError, type TurnEventParams } from "../../src/client/index.js";
import { type ChatServer, held, startChatServer, text } from "../../src/conformance/chat-server.js";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { turnChildOptions, writeTurnHome } from "../../src/conformance/turn-world.js";
import { within } from "../helpers/fakes.js";

function door(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** The last user message's text of each model request the loopback server saw. */
function lastUserTexts(server: ChatServer): string[] {
  return server.requests.map((r) => {
    const users = (r.body.messages as { role: string; content: string }[]).filter(
      (m) => m.role === "user",
    );
    return String(users.at(-1)?.content);
  });
}

/** The SDK's turn handle (steer, queue, undelivered steers) against the real child. */
describe("SDK: startTurn's steer and queue against the real child", () => {
  let box: Sandbox | undefined;
  let server: ChatServer | undefined;
  let client: AgentClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
    box?.cleanup();
    client = server = box = undefined;
  });

  const start = async () => {
    box = sandbox("mc-sdk-steer-");
    server = await startChatServer();
    writeTurnHome(box, server.baseUrl);
    client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        env: {
          PATH: process.env.PATH,
          HOME: box.home,
          MC_HOME: box.home,
          ...turnChildOptions().env,
        },
        capabilities: ["turn", "session.create", "turn.steer", "turn.queue"],
      }),
      60_000,
    );
    await client.call("session.create", {});
    return { client, server };
  };

  it("steer() joins the running turn (steer_applied), and the model's next request carries it", async () => {
    const { client, server } = await start();
    const release = door();
    server.reply(held(text("In English."), 3, release.wait), text("En français."));
    const events: TurnEventParams[] = [];
    const turn = client.startTurn({ input: "answer me", onEvent: (e) => events.push(e) });
    await within(
      (async () => {
        while (!events.some((e) => e.event.type === "message_delta"))
          await new Promise((r) => setTimeout(r, 20));
      })(),
      60_000,
    );
    const { steer_id } = await turn.steer("in French");
    release.open();
    const result = await within(turn.result, 60_000);
    assert.equal(result.status, "completed");
    assert.deepEqual(result.undelivered_steers, []);
    const applied = events.flatMap((e) => (e.event.type === "steer_applied" ? [e.event] : []));
    assert.deepEqual(applied, [{ type: "steer_applied", steer_id, text: "in French" }]);
    assert.deepEqual(lastUserTexts(server), ["answer me", "in French"]);
    // Ended: a later steer is refused without a frame.
    await assert.rejects(turn.steer("too late"), (e) => e instanceof RemoteError);
  });

  it("queue: true waits behind the running turn; a queued turn interrupted before it starts is never sent", async () => {
    const { client, server } = await start();
    const release = door();
    server.reply(held(text("First."), 2, release.wait), text("Third."));
    const events: TurnEventParams[] = [];
    const first = client.startTurn({ input: "first", onEvent: (e) => events.push(e) });
    await within(
      (async () => {
        while (!events.some((e) => e.event.type === "message_delta"))
          await new Promise((r) => setTimeout(r, 20));
      })(),
      60_000,
    );
    const second = client.startTurn({ input: "second", queue: true });
    const third = client.startTurn({ input: "third", queue: true });
    // The child answers status in order: by then both queued starts were admitted to the queue.
    await client.call("status", {});
    await assert.rejects(second.steer("not yet"), (e) => e instanceof RemoteError);
    second.interrupt();
    const removed = await within(second.result, 60_000);
    assert.deepEqual([removed.status, removed.steps, removed.turn_id], ["interrupted", 0, null]);
    release.open();
    assert.equal((await within(first.result, 60_000)).status, "completed");
    assert.equal((await within(third.result, 60_000)).status, "completed");
    assert.deepEqual(lastUserTexts(server), ["first", "third"]);
  });
});
