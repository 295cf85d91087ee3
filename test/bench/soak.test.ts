import assert from "node:assert/strict";
import { test } from "node:test";
import { acpStreamer } from "../../bench/acp-streamer.js";
import { sdkStreamer } from "../../bench/sdk-streamer.js";
import { type SoakResult, soak } from "../../bench/soak.js";
import { CHAT_COMPLETIONS } from "../../bench/turn-formats.js";
import { startBenchServer } from "../../bench/turn-server.js";
import { childStreamer, prepareBox } from "../../bench/turn-world.js";
import type { Frame } from "../../src/conformance/frame.js";
import { sandbox } from "../../src/conformance/harness.js";

/**
 * The long-session soak of bench/soak.bench.ts, scaled down to prove it runs: a few turns
 * through the stdio child, through `mc-agent acp` and through the client SDK, each with its
 * tool call and answer, the context window small enough that the session compacts; every
 * sample and latency is there.
 * No timing is asserted (docs/benchmarks.md has the figures).
 */
const TURNS = 12;
const EVERY = 4;
/** Small enough that a dozen turns compact (each adds about 800 tokens). */
const CONTEXT_WINDOW = 6000;

const admitted = (frame: Frame) =>
  (frame as { params?: { event?: { type?: string } } }).params?.event?.type === "turn_started";

function checkShape(result: SoakResult, admissions: number): void {
  assert.deepEqual(
    result.samples.map((s) => s.turn),
    [4, 8, 12],
  );
  for (const sample of result.samples) assert.ok(sample.rssMb > 0, JSON.stringify(sample));
  const sizes = result.samples.map((s) => s.historyBytes);
  assert.ok(
    sizes.every((size, i) => i === 0 || size > (sizes[i - 1] ?? 0)),
    sizes.join(", "),
  );
  assert.equal(result.firstDeltaMs.length, TURNS);
  assert.equal(result.admissionMs.length, admissions);
  assert.ok(result.summaries >= 1, `compactions: ${result.summaries}`);
  // Each turn: the call that runs the shell, the call that answers; and each summary (a turn
  // compacted between its tool and its answer calls the shell once more).
  assert.ok(result.calls >= 2 * TURNS + result.summaries, `calls: ${result.calls}`);
}

test("the soak runs through the stdio child and through mc-agent acp", async () => {
  const server = await startBenchServer();
  const box = sandbox("mc-test-soak-");
  try {
    const child = await childStreamer(CHAT_COMPLETIONS, server, {
      contextWindow: CONTEXT_WINDOW,
      permissions: "full_access",
      box,
    });
    try {
      checkShape(await soak(server, child, box, { turns: TURNS, every: EVERY, admitted }), TURNS);
    } finally {
      await child.close();
    }
    const agent = await acpStreamer(CHAT_COMPLETIONS, box, { mode: "full_access" });
    try {
      // A new session of its own on the same store: the largest history is still the first's,
      // so only the ACP session's own figures are checked here.
      const result = await soak(server, agent, box, { turns: TURNS, every: EVERY });
      assert.equal(result.firstDeltaMs.length, TURNS);
      assert.ok(result.summaries >= 1, `compactions: ${result.summaries}`);
      assert.ok(result.calls >= 2 * TURNS + result.summaries, `calls: ${result.calls}`);
    } finally {
      await agent.close();
    }
  } finally {
    await server.close();
    box.cleanup();
  }
});

test("the soak runs through the client SDK driving the real child", async () => {
  const server = await startBenchServer();
  const box = sandbox("mc-test-soak-sdk-");
  try {
    prepareBox(CHAT_COMPLETIONS, server, box, CONTEXT_WINDOW);
    const sdk = await sdkStreamer(CHAT_COMPLETIONS, box, {
      permissions: "full_access",
      lag: true,
    });
    try {
      // Its own store: every sample is the SDK session's, its admissions read from the events
      // the SDK handed over; and the SDK's own share timed once a turn for each.
      checkShape(await soak(server, sdk, box, { turns: TURNS, every: EVERY, admitted }), TURNS);
      assert.equal(sdk.lagMs.admission.length, TURNS);
      assert.equal(sdk.lagMs.firstDelta.length, TURNS);
      assert.ok([...sdk.lagMs.admission, ...sdk.lagMs.firstDelta].every((ms) => ms >= 0));
    } finally {
      await sdk.close();
    }
  } finally {
    await server.close();
    box.cleanup();
  }
});
