import { type ChildOptions, sandbox, TestChild } from "../../src/conformance/harness.js";
import { CAPABILITIES, type Capability } from "../../src/protocol/capabilities.js";

/**
 * Which capabilities a child command offers: one short-lived child per capability, asked to
 * initialize with just that one (a refused capability leaves a child uninitialized, an accepted
 * one initializes it, so each needs its own child). Run once per suite or fuzz run.
 */
export async function probeCapabilities(
  options: Pick<ChildOptions, "command" | "testMethods"> = {},
): Promise<string[]> {
  const offered = await Promise.all(
    CAPABILITIES.map(async (capability) => {
      const box = sandbox("mc-probe-");
      const child = new TestChild({ cwd: box.workspace, home: box.home, ...options });
      try {
        const answer = await child.initialize([capability]);
        return answer.result ? capability : null;
      } catch {
        return null;
      } finally {
        await child.close().catch(() => {});
        box.cleanup();
      }
    }),
  );
  return offered.filter((c): c is Capability => c !== null);
}
