import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_BOUNDS } from "../../src/agent/providers/provider.js";
import { testSeamFor } from "../../src/server/test-seam.js";

/** A model call's bounds in a child started with `switches`, as a test build (`test`) or not. */
const turnBounds = (switches: Record<string, string>, test: boolean) =>
  testSeamFor(test ? { ...switches, MC_AGENT_TEST_METHODS: "1" } : switches).turnBounds;

test("turn bounds: the contract's unless a test build shortens them", () => {
  const env = { MC_AGENT_TEST_IDLE_MS: "250", MC_AGENT_TEST_CONNECT_MS: "100" };
  assert.deepEqual(DEFAULT_BOUNDS, { connectMs: 10_000, idleMs: 300_000 });
  assert.deepEqual(turnBounds(env, false), DEFAULT_BOUNDS, "a normal child ignores the switches");
  assert.deepEqual(turnBounds(env, true), { connectMs: 100, idleMs: 250 });
  assert.deepEqual(turnBounds({ MC_AGENT_TEST_IDLE_MS: "0" }, true), DEFAULT_BOUNDS);
  assert.deepEqual(turnBounds({ MC_AGENT_TEST_IDLE_MS: "1.5" }, true), DEFAULT_BOUNDS);
});
