/**
 * Worlds for the hook tests: a child whose provider speaks one of the three wire formats
 * (Chat Completions, Responses, Messages) at a loopback server, with `hooks` in MC_HOME's
 * config.json, a logging hook script, and format-neutral ways to script a tool call or a text
 * reply and to read what the model was sent.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { anthropicReply } from "../fixtures/anthropic-server.js";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { responsesReply } from "../fixtures/responses-server.js";
import { bodies } from "../fixtures/scripted-sse.js";
import type { Sandbox } from "../helpers/child.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { TURN_CAPS } from "./turn-harness.js";

export type Wire = "chat" | "responses" | "messages";
export const WIRES: Wire[] = ["chat", "responses", "messages"];

export const OPENAI_KEY = "sk-openai-hook-test-key";
export const ANTHROPIC_KEY = "sk-ant-hook-test-key";

export interface HookWorld {
  w: ProviderWorld;
  wire: Wire;
  /** The folder the logging script writes to. */
  logDir: string;
  /** `sh <script> <event>`: logs its stdin and environment, then exits 0. */
  logCommand: (event: string) => string;
  call(name: string, input: unknown, id: string): void;
  reply(content: string): void;
  /** Every model request's body, as JSON text, in order. */
  requests(): string[];
  close(): Promise<void>;
}

export interface HookWorldOptions {
  hooks: (world: { logCommand: (event: string) => string; root: string }) => unknown;
  capabilities?: string[];
  project?: unknown;
}

export async function hookWorld(wire: Wire, options: HookWorldOptions): Promise<HookWorld> {
  let logDir = "";
  let logCommand: (event: string) => string = () => "";
  const provider = wire === "chat" ? "demo" : wire === "responses" ? "openai" : "anthropic";
  const w = await providerWorld({
    providers: [provider],
    env: { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY },
    capabilities: options.capabilities ?? [...TURN_CAPS, "hooks"],
    setup: (box: Sandbox) => {
      logDir = join(box.root, "hook-log");
      mkdirSync(logDir);
      const script = join(box.root, "log-hook.sh");
      writeFileSync(
        script,
        `#!/bin/sh\nf="${logDir}/$(date +%s%N)-$1-$$"\ncat > "$f.json"\nenv > "$f.env"\n`,
      );
      chmodSync(script, 0o755);
      logCommand = (event) => `sh ${script} ${event}`;
      const path = join(box.home, "config.json");
      const config = JSON.parse(readFileSync(path, "utf8"));
      config.hooks = options.hooks({ logCommand, root: box.root });
      writeFileSync(path, JSON.stringify(config, null, 2));
      if (options.project !== undefined) {
        mkdirSync(join(box.workspace, ".mc"), { recursive: true });
        writeFileSync(join(box.workspace, ".mc", "config.json"), JSON.stringify(options.project));
      }
    },
  });
  const sse = () => w.sse(wire === "responses" ? "openai" : "anthropic");
  return {
    w,
    wire,
    logDir,
    logCommand,
    call(name, input, id) {
      const args = JSON.stringify(input);
      if (wire === "chat") w.chat().reply(answer({ calls: [{ name, input, id }] }));
      else if (wire === "responses")
        sse().script(responsesReply({ calls: [{ call_id: id, name, arguments: args }] }));
      else
        sse().script(
          anthropicReply({ tools: [{ id, name, json: [args] }], stop_reason: "tool_use" }),
        );
    },
    reply(content) {
      if (wire === "chat") w.chat().reply(text(content));
      else if (wire === "responses") sse().script(responsesReply({ text: [content] }));
      else sse().script(anthropicReply({ text: [content] }));
    },
    requests() {
      if (wire === "chat") return w.chat().requests.map((r) => JSON.stringify(r.body));
      return bodies(sse()).map((b) => JSON.stringify(b));
    },
    close: () => w.close(),
  };
}

export interface LoggedHook {
  event: string;
  input: Record<string, unknown>;
  env: Record<string, string>;
}

/** What the logging script saw, in the order the hooks ran. */
export function loggedHooks(logDir: string): LoggedHook[] {
  const names = readdirSync(logDir)
    .filter((n) => n.endsWith(".json"))
    .sort((a, b) =>
      BigInt(a.split("-")[0] as string) < BigInt(b.split("-")[0] as string) ? -1 : 1,
    );
  return names.map((name) => {
    const stem = name.slice(0, -".json".length);
    const env = Object.fromEntries(
      readFileSync(join(logDir, `${stem}.env`), "utf8")
        .split("\n")
        .filter((line) => line.includes("="))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    return {
      event: stem.split("-")[1] as string,
      input: JSON.parse(readFileSync(join(logDir, name), "utf8")),
      env,
    };
  });
}
