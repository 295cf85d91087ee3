import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ClientError } from "../../src/client/index.js";
import { decodeNegotiation } from "../../src/client/negotiate.js";
import { DISCOVER_EXTENSION, LIMITS, REFRESH_EXTENSION } from "../../src/protocol/constants.js";
import type { InitializeResult } from "../../src/protocol/schemas/lifecycle.js";

const result = (
  capabilities: string[],
  extensions: InitializeResult["extensions"],
): InitializeResult => ({
  protocol_version: 1,
  server: { name: "x", version: "1" },
  capabilities,
  limits: { ...LIMITS },
  extensions,
});

const violation = (e: unknown) => e instanceof ClientError && e.code === "protocol_violation";

describe("decodeNegotiation", () => {
  it("decodes limits and each negotiated extension's parameters separately", () => {
    const n = decodeNegotiation(
      ["session.discover", "model.refresh", "session.list"],
      result(["model.refresh", "session.discover", "session.list"], {
        "session.discover": { ...DISCOVER_EXTENSION },
        "model.refresh": { ...REFRESH_EXTENSION },
      }),
    );
    assert.deepEqual(n.limits, LIMITS);
    assert.deepEqual(n.extensions["session.discover"], DISCOVER_EXTENSION);
    assert.deepEqual(n.extensions["model.refresh"], REFRESH_EXTENSION);
    assert.deepEqual([...n.capabilities], ["model.refresh", "session.discover", "session.list"]);
  });

  it("no extension parameters for base capabilities or parameterless extensions", () => {
    const n = decodeNegotiation(
      ["session.list", "operation.cancel"],
      result(["operation.cancel", "session.list"], {}),
    );
    assert.deepEqual(n.extensions, {});
  });

  it("refuses a different capability set than asked", () => {
    assert.throws(
      () => decodeNegotiation(["session.list"], result(["model.catalog", "session.list"], {})),
      violation,
    );
    assert.throws(
      () => decodeNegotiation(["session.list", "model.catalog"], result(["session.list"], {})),
      violation,
    );
  });

  it("refuses missing or unasked extension parameters", () => {
    assert.throws(
      () => decodeNegotiation(["session.discover"], result(["session.discover"], {})),
      violation,
    );
    assert.throws(
      () =>
        decodeNegotiation(
          ["session.list"],
          result(["session.list"], { "model.refresh": { ...REFRESH_EXTENSION } }),
        ),
      violation,
    );
  });
});
