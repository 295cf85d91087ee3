import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEMO_KEY, type DemoProvider, startDemoProvider } from "../../src/cli/demo/provider.js";

/** The SSE `data:` payloads of a response, in order ("[DONE]" kept as is). */
async function dataLines(response: Response): Promise<string[]> {
  const body = await response.text();
  assert.ok(body.endsWith("\n\n"), "every event ends with a blank line");
  return body
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      assert.ok(block.startsWith("data: "), block);
      return block.slice("data: ".length);
    });
}

/** The demo's scripted model speaks the Chat Completions streaming wire format exactly. */
describe("demo provider: POST /v1/chat/completions", () => {
  let provider: DemoProvider;
  before(async () => {
    provider = await startDemoProvider();
  });
  after(() => provider.close());
  const post = (body: unknown, key = DEMO_KEY) =>
    fetch(`${provider.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("asked a question: text, then one list_dir call in fragments, finish, usage, [DONE]", async () => {
    const response = await post({
      model: "demo-1",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are an agent." },
        { role: "user", content: "What is here?" },
      ],
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const lines = await dataLines(response);
    assert.equal(lines.at(-1), "[DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l));
    for (const c of chunks) assert.equal(c.object, "chat.completion.chunk");
    assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
    const deltas = chunks.slice(1, -2).map((c) => c.choices[0].delta);
    const content = deltas.filter((d) => typeof d.content === "string").map((d) => d.content);
    assert.ok(content.length > 1, "the text comes in pieces");
    assert.equal(content.join(""), "Let me look at this folder first.");
    const fragments = deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls[0]);
    assert.deepEqual(fragments[0], {
      index: 0,
      id: "call_demo_list_1",
      type: "function",
      function: { name: "list_dir", arguments: "" },
    });
    assert.ok(fragments.length > 2, "the arguments come in pieces");
    for (const f of fragments.slice(1)) assert.deepEqual(Object.keys(f), ["index", "function"]);
    assert.deepEqual(JSON.parse(fragments.map((f) => f.function.arguments).join("")), {
      path: ".",
    });
    assert.equal(chunks.at(-2).choices[0].finish_reason, "tool_calls");
    assert.deepEqual(chunks.at(-1).choices, []);
    assert.equal(typeof chunks.at(-1).usage.prompt_tokens, "number");
  });

  it("shown the listing: says how many entries it saw; no usage chunk unless asked", async () => {
    const listing =
      "dir src\nfile a.txt\nfile b.txt\n[2 more entries not shown (the 1000-entry limit)]";
    const response = await post({
      model: "demo-1",
      stream: true,
      messages: [
        { role: "user", content: "What is here?" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function" }] },
        { role: "tool", tool_call_id: "c1", content: listing },
      ],
    });
    const chunks = (await dataLines(response)).slice(0, -1).map((l) => JSON.parse(l));
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    assert.equal(
      text,
      "I looked: this folder has 5 entries (1 folder). Tell me what to do with them.",
    );
    assert.equal(chunks.at(-1).choices[0].finish_reason, "stop");
    assert.ok(
      chunks.every((c) => c.choices.length === 1),
      "no usage chunk",
    );
  });

  it("refuses a wrong key and a body that is not JSON", async () => {
    assert.equal((await post({ messages: [] }, "wrong")).status, 401);
    const response = await fetch(`${provider.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_KEY}` },
      body: "{not json",
    });
    assert.equal(response.status, 400);
  });
});
