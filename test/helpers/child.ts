import assert from "node:assert/strict";
import { type ChildOptions, type Sandbox, TestChild } from "../../src/conformance/harness.js";
import { SEED_CAPABILITIES } from "../../src/protocol/capabilities.js";

// The black-box harness lives in src/conformance so that `mc-agent conformance` ships it too.
export * from "../../src/conformance/frame.js";
export * from "../../src/conformance/harness.js";

/** Starts a child in a sandbox and initializes it with the given capabilities. */
export async function startReady(
  box: Sandbox,
  capabilities: string[] = [...SEED_CAPABILITIES],
  extra: Partial<ChildOptions> = {},
): Promise<TestChild> {
  const child = new TestChild({ cwd: box.workspace, home: box.home, ...extra });
  const init = await child.initialize(capabilities);
  assert.ok(init.result, `initialize failed: ${JSON.stringify(init.error)}`);
  return child;
}
