import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.js";
import { createModelProvider } from "../../src/agent/providers/index.js";
import type { ProviderFailure } from "../../src/agent/providers/provider.js";
import { providerText } from "../../src/agent/providers/provider-text.js";
import { createResponsesProvider } from "../../src/agent/providers/responses.js";
import type { Credential } from "../../src/credentials/discovery.js";
import { PROVIDER_MESSAGE_CHARS } from "../../src/protocol/schemas/turns.js";
import {
  type ChatServer,
  fail,
  garbage,
  startChatServer,
} from "../fixtures/chat-completions-server.js";
import { type Reply, type ScriptedServer, startScriptedServer } from "../fixtures/scripted-sse.js";
import { KEY as CHAT_KEY, chatProvider, drain as drainChat } from "./chat-helpers.js";
import { drain, modelRequest, options, providerAt } from "./provider-helpers.js";

const HELPFUL = "model 'llama3' not found, try pulling it first.";

/**
 * An error text as a hostile or careless server might send it: the helpful sentence first,
 * then the caller's key, the server's own URL, other addresses, paths, an e-mail, key-shaped
 * tokens, terminal escapes and a great deal more text.
 */
function hostile(key: string, url: string): string {
  return [
    HELPFUL,
    `Your key=${key} (Authorization: Bearer ${key}) was sent to ${url}/v1/models;`,
    "mirror at http://10.0.0.7:11434/api/pull or localhost:8080 or [::1]:9000;",
    "weights in /home/alice/.ollama/models/blobs/sha256-9f8e.bin and C:\\Users\\bob\\cfg.json,",
    "see ~/.mc/auth.json or ./secrets/prod.env; write to alice@example.com;",
    `token sk-proj-${"a1".repeat(20)} or ghp_${"Z9".repeat(18)} or`,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlX2hlcmU and",
    `AKIA${"7Q".repeat(12)}QQ \u001b]0;pwned\u0007\u001b[31m red \u0000 nul`,
    "x".repeat(5000),
  ].join(" ");
}

/** The leaks a provider_message must never carry, for a call to `url` with `key`. */
function assertSafe(
  failure: ProviderFailure | null | undefined,
  key: string,
  url: string,
  what: string,
) {
  assert.ok(failure, `${what}: the call failed`);
  const said = failure.providerMessage;
  assert.ok(said, `${what}: the provider's text is kept`);
  assert.ok(said.startsWith(HELPFUL), `${what}: ${said}`);
  assert.ok(said.length <= PROVIDER_MESSAGE_CHARS, `${what}: ${said.length} chars`);
  const leaks = [
    key,
    url,
    "127.0.0.1",
    "10.0.0.7",
    "localhost",
    "::1",
    "/home/alice",
    "sha256-9f8e",
    "Users\\bob",
    "cfg.json",
    "auth.json",
    "prod.env",
    "alice@",
    "example.com",
    "sk-proj",
    "ghp_",
    "eyJ",
    "AKIA",
    "\u001b",
    "\u0007",
    "\u0000",
    "pwned",
  ];
  for (const leak of leaks)
    assert.ok(!said.includes(leak), `${what}: names ${JSON.stringify(leak)}: ${said}`);
  // The fixed message stays as it was: no provider text in it.
  assert.ok(!failure.message.includes("llama3"), `${what}: ${failure.message}`);
}

describe("provider_message: the provider's own words, bounded and redacted", () => {
  test("redaction keeps model names and plain words", () => {
    assert.equal(
      providerText("model qwen2.5-coder:7b or meta-llama/Llama-3-8B is not loaded; and/or retry"),
      "model qwen2.5-coder:7b or meta-llama/Llama-3-8B is not loaded; and/or retry",
    );
    assert.equal(providerText("<html><body>502 Bad Gateway</body></html>"), null);
    assert.equal(providerText({ error: { type: "x" } }), null);
    assert.equal(providerText('{"detail":"Not Found"}'), "Not Found");
    assert.equal(providerText("  plain\n\ttext  "), "plain text");
    const long = providerText(`${"é".repeat(300)}`);
    assert.equal(long?.length, PROVIDER_MESSAGE_CHARS);
    assert.ok(long?.endsWith("…"));
    // A surrogate pair at the cut is never split.
    const emoji = providerText("😀".repeat(200)) ?? "";
    assert.ok(emoji.length <= PROVIDER_MESSAGE_CHARS && !/[\ud800-\udbff]…$/.test(emoji));
  });

  describe("Chat Completions (openai-compatible, Ollama's and llama.cpp's shapes)", () => {
    let server: ChatServer;
    before(async () => {
      server = await startChatServer();
    });
    after(() => server.close());

    test("the call's own key is redacted whatever its shape, also when the bound cuts it", async () => {
      const key = "plainword";
      const provider = createModelProvider(
        options(providerAt("openai-compatible", server.baseUrl, "local"), { kind: "api_key", key }),
      );
      server.reply(fail(404, { body: { error: `model not found; your key ${key} is fine` } }));
      const whole = (await drain(provider.stream(modelRequest()))).failure;
      assert.equal(whole?.providerMessage, "model not found; your key [redacted] is fine");
      server.reply(fail(404, { body: { error: `${"x".repeat(235)} ${key} and more` } }));
      const cut = (await drain(provider.stream(modelRequest()))).failure?.providerMessage ?? "";
      assert.ok(!cut.includes("plai"), cut);
      assert.ok(cut.length <= PROVIDER_MESSAGE_CHARS && cut.endsWith("…"), cut);
    });

    test("an error status with {error: {message}}, with {error: string}, and an in-stream error", async () => {
      const text = hostile(CHAT_KEY, server.baseUrl);
      const shapes: [string, () => void][] = [
        [
          "404 {error:{message}}",
          () => server.reply(fail(404, { body: { error: { message: text, type: "not_found" } } })),
        ],
        ["404 {error: string} (Ollama)", () => server.reply(fail(404, { body: { error: text } }))],
        ["400 text/plain", () => server.reply(fail(400, { body: text }))],
        [
          "in-stream {error}",
          () =>
            server.reply(
              garbage(
                `data: ${JSON.stringify({ error: { message: text, code: "model_not_found" } })}\n\n`,
              ),
            ),
        ],
      ];
      for (const [what, script] of shapes) {
        script();
        const outcome = await drainChat(chatProvider(server.baseUrl));
        assertSafe(outcome.failure, CHAT_KEY, server.baseUrl, what);
      }
    });
  });

  describe("Responses (openai) and Anthropic Messages", () => {
    let server: ScriptedServer;
    before(async () => {
      server = await startScriptedServer();
    });
    after(() => server.close());
    const KEY = "sk-test-provider-message-99";

    const responses = async (reply: Reply) => {
      server.script(reply);
      const provider = createResponsesProvider(
        options(providerAt("openai", `${server.url}/v1`), { kind: "api_key", key: KEY }),
      );
      return (await drain(provider.stream(modelRequest()))).failure;
    };
    const anthropic = async (reply: Reply) => {
      server.script(reply);
      const provider = createAnthropicProvider(
        options(providerAt("anthropic", server.url), { kind: "api_key", key: KEY }),
      );
      return (await drain(provider.stream(modelRequest({ model: "claude-test" })))).failure;
    };

    test("Responses: an error status, an in-stream error event, response.failed", async () => {
      const text = hostile(KEY, server.url);
      const status = await responses({
        kind: "status",
        status: 404,
        body: { error: { message: text, type: "invalid_request_error", code: "model_not_found" } },
      });
      assertSafe(status, KEY, server.url, "responses 404");
      const event = await responses({
        kind: "sse",
        events: [
          { event: "error", data: { type: "error", code: "model_not_found", message: text } },
        ],
      });
      assertSafe(event, KEY, server.url, "responses error event");
      const failed = await responses({
        kind: "sse",
        events: [
          {
            event: "response.failed",
            data: {
              type: "response.failed",
              response: { error: { code: "server_error", message: text } },
            },
          },
        ],
      });
      assertSafe(failed, KEY, server.url, "responses response.failed");
    });

    test("the call's own plain-word credential is redacted on every path, key or token", async () => {
      const word = "plainsecretword";
      const said = `model missing; you sent ${word} as asked`;
      const expected = "model missing; you sent [redacted] as asked";
      const viaResponses = async (reply: Reply) => {
        server.script(reply);
        const provider = createModelProvider(
          options(providerAt("openai", `${server.url}/v1`), { kind: "api_key", key: word }),
        );
        return (await drain(provider.stream(modelRequest()))).failure?.providerMessage;
      };
      const viaAnthropic = async (reply: Reply, credential: Credential) => {
        server.script(reply);
        const provider = createModelProvider(
          options(providerAt("anthropic", server.url), credential),
        );
        return (await drain(provider.stream(modelRequest({ model: "claude-test" })))).failure
          ?.providerMessage;
      };
      const status = { kind: "status", status: 404, body: { error: { message: said } } } as const;
      assert.equal(await viaResponses(status), expected, "responses 404");
      assert.equal(
        await viaResponses({
          kind: "sse",
          events: [{ event: "error", data: { type: "error", code: "x", message: said } }],
        }),
        expected,
        "responses error event",
      );
      const inStream: Reply = {
        kind: "sse",
        events: [{ event: "error", data: { type: "error", error: { type: "x", message: said } } }],
      };
      assert.equal(await viaAnthropic(status, { kind: "api_key", key: word }), expected);
      assert.equal(await viaAnthropic(inStream, { kind: "oauth_bearer", token: word }), expected);
    });

    test("Anthropic: an error status and an in-stream error event", async () => {
      const text = hostile(KEY, server.url);
      const status = await anthropic({
        kind: "status",
        status: 404,
        body: { type: "error", error: { type: "not_found_error", message: text } },
      });
      assertSafe(status, KEY, server.url, "anthropic 404");
      const event = await anthropic({
        kind: "sse",
        events: [
          {
            event: "error",
            data: { type: "error", error: { type: "invalid_request_error", message: text } },
          },
        ],
      });
      assertSafe(event, KEY, server.url, "anthropic error event");
    });
  });
});
