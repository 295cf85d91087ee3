import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RequestError } from "@agentclientprotocol/sdk";
import { text } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { BUILT_IN_URLS, cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";
import { AcpWorld } from "./acp-world.js";

/**
 * Every first-run failure, as an editor sees it through `mc-agent acp` (docs/acp.md, "First
 * run"): a distinct message naming the command to run, with the real MC_HOME (the test's is not
 * the default ~/.mc, so every command carries it). Before, each was "That model is not a
 * selectable choice.". One agent process goes through the settings one after another: each
 * session starts its own engine, which reads them afresh.
 */

/** A URL on 127.0.0.1 where nothing listens: the provider is down. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** The ACP error a request failed with. */
async function refusal(work: Promise<unknown>): Promise<RequestError> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof RequestError, String(error));
    return error;
  }
  assert.fail("the request succeeded");
}

const codeOf = (error: RequestError) => (error.data as { code?: string } | undefined)?.code;

describe("acp first run: each failure names its next step", () => {
  it("no config, invalid config, no key, no cache, nothing enabled, provider down", async () => {
    const box = sandbox("mc-acp-first-");
    const world = await AcpWorld.start({ box });
    const config = join(box.home, "config.json");
    const setup = `"MC_HOME=${box.home} mc-agent setup"`;
    const messages = new Map<string, string>();
    try {
      // Nothing at all: initialize says what to run, and session/new is ACP's auth_required.
      const init = await world.initialize();
      const method = init.authMethods?.[0];
      assert.equal(method?.id, "configure-credentials");
      assert.ok(method?.description?.includes(setup), method?.description ?? "");
      assert.ok(method?.description?.includes(config), "the real MC_HOME's file is named");
      assert.ok(!method?.description?.includes("~/.mc"));
      const none = await refusal(world.newSession());
      assert.equal(none.code, -32000);
      assert.equal(codeOf(none), "authentication_unavailable");
      assert.ok(none.message.includes(setup), none.message);
      messages.set("no config", none.message);
      const auth = await refusal(
        world.agent.request("authenticate", { methodId: "configure-credentials" }),
      );
      assert.equal(auth.code, -32000);

      // An invalid file: reported with its line and column, on every session/new, once on stderr.
      writeFileSync(config, '{\n  "model": "kit/kit-1",\n}\n');
      const where = `${config} is invalid at line 2, column 23 (trailing_comma)`;
      for (let i = 0; i < 2; i++) {
        const invalid = await refusal(world.newSession());
        assert.equal(codeOf(invalid), "configuration_invalid");
        assert.ok(invalid.message.startsWith(where), invalid.message);
        messages.set("invalid config", invalid.message);
      }
      assert.equal(world.stderr.split(where).length - 1, 1, world.stderr);
      assert.ok(!world.stderr.includes("settings file is invalid and ignored"), world.stderr);

      const promptFailure = async (label: string) => {
        const { sessionId } = await world.newSession();
        const error = await refusal(world.prompt(sessionId, "Hello"));
        messages.set(label, error.message);
        return error;
      };

      // A configured provider whose key variable is not set.
      writeTurnHome(box, world.server.baseUrl);
      const withKey = (keyEnv: string, rest: object = {}) =>
        writeFileSync(
          config,
          JSON.stringify({
            providers: {
              kit: {
                type: "openai-compatible",
                base_url: world.server.baseUrl,
                api_key_env: keyEnv,
              },
            },
            ...rest,
          }),
        );
      // Its catalog is cached, so something is selectable: session/new, not the first prompt,
      // says the provider has no credentials (ACP's auth_required, as with nothing at all).
      withKey("MC_ABSENT_KEY", { enabled_models: ["kit/kit-1"], model: "kit/kit-1" });
      const noKey = await refusal(world.newSession());
      messages.set("no key", noKey.message);
      assert.equal(noKey.code, -32000);
      assert.equal(codeOf(noKey), "authentication_unavailable");
      assert.match(noKey.message, /Give kit credentials/);
      assert.ok(noKey.message.includes(setup));

      // Its key is there, but its catalog was never fetched.
      withKey("MC_KIT_KEY", { enabled_models: ["kit/kit-1"], model: "kit/kit-1" });
      rmSync(join(box.home, "cache", "models", "kit.json"));
      const noCache = await promptFailure("no cache");
      assert.equal(codeOf(noCache), "model_unavailable");
      assert.ok(noCache.message.includes(`"MC_HOME=${box.home} mc-agent refresh kit"`));

      // Fetched, but no model enabled.
      writeTurnHome(box, world.server.baseUrl);
      withKey("MC_KIT_KEY");
      const noModel = await promptFailure("nothing enabled");
      assert.equal(codeOf(noModel), "model_unavailable");
      assert.ok(
        noModel.message.includes(
          `"MC_HOME=${box.home} mc-agent models enable kit/<model> --default"`,
        ),
        noModel.message,
      );

      // All set, but the provider does not answer: after its retries, what to check.
      writeTurnHome(box, await closedUrl());
      const down = await promptFailure("provider down");
      assert.equal(codeOf(down), "remote_unavailable");
      assert.match(down.message, /Check that the model provider is running and reachable/);
      assert.ok(
        world.updates("agent_thought_chunk").length > 0,
        "the retries were shown while they ran",
      );

      assert.equal(new Set(messages.values()).size, messages.size, [...messages].join("\n"));
      assert.ok(![...messages.values()].some((m) => m.includes("not a selectable choice")));
    } finally {
      await world.close();
    }
  });

  it("only a key exported, nothing set up: the prompt names mc-agent setup", async () => {
    const box = sandbox("mc-acp-first-");
    const world = await AcpWorld.start({ box, env: { OPENAI_API_KEY: "sk-first-run" } });
    try {
      const init = await world.initialize();
      assert.deepEqual(init.authMethods, [], "a provider has credentials");
      const { sessionId } = await world.newSession();
      const error = await refusal(world.prompt(sessionId, "Hello"));
      assert.equal(codeOf(error), "model_unavailable");
      assert.equal(
        error.message,
        `No model is set up yet. Run "MC_HOME=${box.home} mc-agent setup": it finds your API keys, logins and local model servers, fetches a provider's models and sets your default model.`,
      );
    } finally {
      await world.close();
    }
  });

  it("a cached model whose provider has no credentials: session/new is auth_required, naming it", async () => {
    const box = sandbox("mc-acp-first-");
    const world = await AcpWorld.start({ box });
    const setup = `"MC_HOME=${box.home} mc-agent setup"`;
    const kit = (keyEnv?: string) => ({
      type: "openai-compatible",
      base_url: world.server.baseUrl,
      ...(keyEnv ? { api_key_env: keyEnv } : {}),
    });
    try {
      writeTurnHome(box, world.server.baseUrl);
      writeCache(box, "openai", cacheDoc("openai", BUILT_IN_URLS.openai, [{ id: "gpt-test" }]));
      // A built-in provider selected and cached, OPENAI_API_KEY unset; kit has its key, so
      // something has credentials and initialize offers no auth method.
      const enabled = ["kit/kit-1", "openai/gpt-test"];
      writeConfig(box, {
        providers: { kit: kit("MC_KIT_KEY") },
        enabled_models: enabled,
        model: "openai/gpt-test",
      });
      assert.deepEqual((await world.initialize()).authMethods, []);
      const builtIn = await refusal(world.newSession());
      assert.equal(builtIn.code, -32000);
      assert.equal(codeOf(builtIn), "authentication_unavailable");
      assert.match(
        builtIn.message,
        /^The model's provider has no usable credentials\. Give openai credentials/,
      );
      assert.ok(builtIn.message.includes(setup), builtIn.message);
      assert.ok(!builtIn.message.includes(world.server.baseUrl), "no URL in the message");

      // A custom provider whose key variable is named but unset.
      writeConfig(box, {
        providers: { kit: kit("MC_ABSENT_KEY") },
        enabled_models: enabled,
        model: "kit/kit-1",
      });
      const custom = await refusal(world.newSession());
      assert.equal(codeOf(custom), "authentication_unavailable");
      assert.match(custom.message, /Give kit credentials/);

      // A refusal of ours, not a handler's failure (which would be logged as a bug).
      assert.equal(world.stderr.includes("ACP handler failed"), false, world.stderr);

      // The selected provider's key is set (or it needs none): session/new answers, and a prompt runs.
      for (const provider of [kit("MC_KIT_KEY"), kit()]) {
        writeConfig(box, {
          providers: { kit: provider },
          enabled_models: enabled,
          model: "kit/kit-1",
        });
        const { sessionId } = await world.newSession();
        world.server.reply(text("Hello"));
        assert.equal((await world.prompt(sessionId, "Hi")).stopReason, "end_turn");
      }
    } finally {
      await world.close();
    }
  });
});
