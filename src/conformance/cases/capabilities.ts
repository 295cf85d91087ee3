import assert from "node:assert/strict";
import { SEED_CAPABILITIES } from "../../protocol/capabilities.js";
import { DISCOVER_EXTENSION, REFRESH_EXTENSION } from "../../protocol/constants.js";
import type { ConformanceCase } from "../case.js";

/**
 * The whole seed protocol is on offer: a complete implementation accepts all ten of the seed's
 * capabilities at once, and with them advertises exactly the two extension parameter objects
 * (our own `turn` extension has cases of its own). The kit's other
 * cases skip when a capability is refused; this case is what makes such a child fail.
 */
export const CAPABILITY_CASES: ConformanceCase[] = [
  {
    id: "capabilities.all_ten_offered",
    tier: "MUST",
    clause:
      "base §4: Capabilities: base session.list, session.create, session.open, session.history, model.catalog, model.select; extensions session.discover, model.catalog.status, model.refresh, operation.cancel.",
    title: "initialize accepts all ten capabilities and advertises both extension objects",
    async run({ spawn }) {
      const child = spawn();
      const answer = await child.initialize([...SEED_CAPABILITIES]);
      assert.ok(answer.result, `initialize refused: ${JSON.stringify(answer.error)}`);
      assert.deepEqual(answer.result.capabilities, [...SEED_CAPABILITIES].sort());
      assert.deepEqual(answer.result.extensions, {
        "session.discover": DISCOVER_EXTENSION,
        "model.refresh": REFRESH_EXTENSION,
      });
    },
  },
];
