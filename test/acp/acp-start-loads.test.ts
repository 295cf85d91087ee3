import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sessionNewPreloaded } from "./preloaded-agent.js";

/**
 * What `mc-agent acp` has loaded of Node's own modules when it answers an editor's first
 * `session/new` (docs/acp.md, "Start-up"): each is CPU time on the path to a session ready for
 * a prompt, so what that answer does not use is loaded on first use, after it. Read inside the
 * agent by a preloaded script that notes `process.moduleLoadList` as the answer is written, at
 * the second start in a world (TMPDIR of its own): the first one's sandbox probe wrote the probe
 * memo, which then answers, so nothing is spawned before the answer (docs/acp.md, "Start-up").
 */

const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

const PRELOAD = `
const { writeFileSync } = require("node:fs");
const stdout = process.stdout;
const write = stdout.write;
stdout.write = function (chunk, ...rest) {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  if (text.startsWith('{"jsonrpc":"2.0","id":1,"result"'))
    writeFileSync(process.env.MC_TEST_LOADED_AT_ANSWER, JSON.stringify(process.moduleLoadList));
  return write.call(this, chunk, ...rest);
};
`;

/** The internal modules loaded when session/new (ID 1) was answered, in a started agent. */
async function loadedAtAnswer(box: Sandbox): Promise<string[]> {
  const noted = join(box.root, "loaded.json");
  await sessionNewPreloaded(box, PRELOAD, { MC_TEST_LOADED_AT_ANSWER: noted });
  return JSON.parse(readFileSync(noted, "utf8")) as string[];
}

/** Node's modules the answer does not use, and what loaded them before (each 2-5 ms of CPU). */
const NOT_AT_ANSWER = [
  // The global `performance`, read by the engine's request registry (operations.ts).
  "NativeModule perf_hooks",
  "NativeModule internal/perf/performance",
  // Imported by the modules that spawn git, commands, hooks and MCP servers.
  "NativeModule child_process",
  // Imported by the history's parse threads (parse-worker-pool.ts).
  "NativeModule worker_threads",
  // Imported by the session files' readers and the MCP servers' stderr.
  "NativeModule readline",
  // The SDK's ndJsonStream and the adapters around it (agent-input.ts, stdout-sink.ts).
  "NativeModule internal/webstreams/readablestream",
  "NativeModule internal/webstreams/writablestream",
  "NativeModule internal/webstreams/transformstream",
];

describe("acp: what the start loads before session/new's answer", () => {
  it("loads none of the modules only later work uses", async () => {
    const box = sandbox("mc-acp-start-loads-");
    boxes.push(box);
    writeTurnHome(box, "http://127.0.0.1:9/v1");
    mkdirSync(join(box.root, "tmp"));
    await loadedAtAnswer(box);
    const loaded = await loadedAtAnswer(box);
    assert.ok(loaded.includes("NativeModule fs"), "the note was taken");
    for (const name of NOT_AT_ANSWER) assert.ok(!loaded.includes(name), `${name} was loaded`);
  });
});
