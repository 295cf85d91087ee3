import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { plainInitialize } from "../../src/acp/initialize-check.js";
import { PACKAGE_ROOT } from "../../src/conformance/harness.js";

/**
 * The starter's hand check (src/acp/initialize-check.ts) against the SDK's own schema of an
 * `initialize` request (`zInitializeRequest`, which the SDK parses the params with before our
 * handler runs): whatever the check takes, the SDK takes too, with the same
 * `clientCapabilities.auth.terminal` (the one field the answer reads); and a plain editor's
 * initialize is taken. The schema is read from the installed SDK by path (its package exports
 * no schema module).
 */
type Parsed = {
  success: boolean;
  data?: { clientCapabilities?: { auth?: { terminal?: boolean } } };
};
const schemas = (await import(
  pathToFileURL(
    join(PACKAGE_ROOT, "node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js"),
  ).href
)) as { zInitializeRequest: { safeParse(value: unknown): Parsed } };

const line = (message: unknown) => new TextEncoder().encode(JSON.stringify(message));

/** Values near every edge the schema has: types, integers, bounds, nesting. */
const edgy = fc.oneof(
  fc.constantFrom(0, 1, -1, -0, 65535, 65536, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e21),
  fc.constantFrom(null, true, false, "1", "", [], {}),
  fc.integer(),
  fc.double(),
  fc.string(),
);
const auth = fc.oneof(
  edgy,
  fc.record(
    { terminal: fc.oneof(fc.constant(true), edgy), _meta: fc.oneof(edgy, fc.object()) },
    { requiredKeys: [] },
  ),
);
const capabilities = fc.oneof(
  edgy,
  fc.record(
    {
      fs: fc.oneof(edgy, fc.record({ readTextFile: edgy, writeTextFile: edgy })),
      terminal: edgy,
      auth,
      session: edgy,
      elicitation: edgy,
      _meta: fc.oneof(edgy, fc.object()),
    },
    { requiredKeys: [] },
  ),
);
const params = fc.record(
  {
    protocolVersion: fc.oneof(edgy, fc.integer({ min: 0, max: 65535 })),
    clientCapabilities: capabilities,
    clientInfo: fc.oneof(edgy, fc.record({ name: fc.string(), version: fc.string() })),
    _meta: fc.oneof(edgy, fc.object()),
  },
  { requiredKeys: [] },
);

describe("acp starter: the hand check of an initialize", () => {
  it("takes only what the SDK's schema takes, with the same auth.terminal", () => {
    fc.assert(
      fc.property(params, (p) => {
        const taken = plainInitialize(
          line({ jsonrpc: "2.0", id: 1, method: "initialize", params: p }),
        );
        // JSON drops what it cannot carry (-0 becomes 0, a double may round): compare on that.
        const sent = schemas.zInitializeRequest.safeParse(JSON.parse(JSON.stringify(p)));
        assert.equal(taken !== null, sent.success, JSON.stringify(p));
        if (taken !== null)
          assert.equal(taken.terminal, sent.data?.clientCapabilities?.auth?.terminal === true);
      }),
      { numRuns: 3000 },
    );
  });

  it("takes an editor's initialize, and leaves every other first line to the SDK", () => {
    const zed = {
      protocolVersion: 1,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        auth: { terminal: true },
        _meta: { "terminal-auth": true },
      },
      clientInfo: { name: "zed", title: "Zed", version: "0.220.0" },
    };
    assert.deepEqual(
      plainInitialize(line({ jsonrpc: "2.0", id: 0, method: "initialize", params: zed })),
      {
        id: 0,
        terminal: true,
      },
    );
    const text = new TextEncoder().encode(
      `\uFEFF  ${JSON.stringify({ jsonrpc: "2.0", id: "a", method: "initialize", params: { protocolVersion: 1 } })}\r`,
    );
    assert.deepEqual(plainInitialize(text), { id: "a", terminal: false });
    for (const other of [
      { jsonrpc: "2.0", id: 1, method: "session/new", params: {} },
      { jsonrpc: "2.0", method: "initialize", params: zed },
      { jsonrpc: "2.0", id: null, method: "initialize", params: zed },
      { jsonrpc: "1.0", id: 1, method: "initialize", params: zed },
      { id: 1, method: "initialize", params: zed },
      { jsonrpc: "2.0", id: 1, method: "initialize" },
      { jsonrpc: "2.0", id: 1, method: "initialize", params: [] },
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 65536 } },
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "1" } },
      [{ jsonrpc: "2.0", id: 1, method: "initialize", params: zed }],
    ])
      assert.equal(plainInitialize(line(other)), null, JSON.stringify(other));
    assert.equal(plainInitialize(new TextEncoder().encode("{not json")), null);
  });
});
