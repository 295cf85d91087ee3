import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { KIT_KEY, writeTurnHome } from "../../src/conformance/turn-world.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * Each first-run failure in `exec` and in `chat`: the same failure line in both, naming its own
 * next step (issue 38, "Tests must show"; the editor's side is test/acp/acp-first-run.test.ts).
 * The kit provider's settings are written as a user would leave them at each wrong turn.
 */

async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

const provider = (baseUrl: string, keyEnv: string) => ({
  kit: { type: "openai-compatible", base_url: baseUrl, api_key_env: keyEnv },
});

/** Each situation: how its home is made, and what its failure line must name. */
const SITUATIONS: [string, (box: Sandbox, url: string) => void, RegExp][] = [
  ["no config", () => {}, /\(model_unavailable\)\. Run "mc-agent setup"/],
  [
    "no key",
    (box, url) => {
      writeTurnHome(box, url);
      writeFileSync(
        join(box.home, "config.json"),
        JSON.stringify({
          providers: provider(url, "MC_ABSENT_KEY"),
          enabled_models: ["kit/kit-1"],
          model: "kit/kit-1",
        }),
      );
    },
    /\(authentication_unavailable\)\. Give kit credentials: .*"mc-agent setup" shows what it finds/,
  ],
  [
    "no cache",
    (box, url) => {
      writeTurnHome(box, url);
      rmSync(join(box.home, "cache", "models", "kit.json"));
    },
    /\(model_unavailable\)\. Fetch kit's models: run "mc-agent refresh kit"/,
  ],
  [
    "nothing enabled",
    (box, url) => {
      writeTurnHome(box, url);
      writeFileSync(
        join(box.home, "config.json"),
        JSON.stringify({ providers: provider(url, "MC_KIT_KEY") }),
      );
    },
    /\(model_unavailable\)\. .*run "mc-agent models enable kit\/<model> --default"/,
  ],
  [
    "invalid config",
    (box) => writeFileSync(join(box.home, "config.json"), '{\n  "model": "kit/kit-1",\n}\n'),
    /\(configuration_invalid\)\. Fix the file .*mc-agent doctor/,
  ],
  ["provider down", (box, url) => writeTurnHome(box, url), /\(remote_unavailable\)\. /],
];

describe("exec and chat: each first-run failure names its next step", () => {
  it("the same failure line in exec and chat, a distinct one for each situation", async () => {
    const down = await closedUrl();
    const lines = new Map<string, string>();
    for (const [name, make, expected] of SITUATIONS) {
      const box = sandbox("mc-cli-first-");
      try {
        make(box, name === "provider down" ? down : "http://127.0.0.1:9/v1");
        const env = {
          PATH: process.env.PATH,
          HOME: box.home,
          MC_HOME: box.home,
          CODEX_HOME: join(box.home, "no-codex"),
          CLAUDE_CONFIG_DIR: join(box.home, "no-claude"),
          MC_KIT_KEY: KIT_KEY,
        };
        const options = { cwd: box.workspace, env, timeoutMs: 60_000 };
        const exec = await runCli(["exec", "Hello"], options);
        const chat = await runCli(["chat"], { ...options, input: "Hello\n" });
        const failure = (stderr: string) =>
          // The last such line: an invalid file's location comes first, then the failure.
          stderr
            .split("\n")
            .reverse()
            .find((line) => line.startsWith("mc-agent: ")) ?? "";
        // A failed turn ends exec; chat says it and goes on to its next line (here, none).
        assert.notEqual(exec.code, 0, name);
        assert.match(failure(exec.stderr), expected, `${name}: ${exec.stderr}`);
        assert.equal(failure(chat.stderr), failure(exec.stderr), `${name}: the same in chat`);
        lines.set(name, failure(exec.stderr));
      } finally {
        box.cleanup();
      }
    }
    assert.equal(new Set(lines.values()).size, lines.size, [...lines.values()].join("\n"));
  });
});
