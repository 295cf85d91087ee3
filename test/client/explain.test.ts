import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { adviceFor, CLIENT_ERROR_CODES, explain, explainRefresh } from "../../src/client/index.js";
import { ERROR_CODES } from "../../src/protocol/codes.js";
import {
  AUTHENTICATION_STATES,
  CATALOG_RECOVERIES,
  CATALOG_STATUSES,
  REFRESH_REASONS,
} from "../../src/protocol/schemas/models.js";

describe("explain", () => {
  it("has a sentence and an action for every status, authentication and recovery value", () => {
    for (const catalog_status of CATALOG_STATUSES)
      for (const authentication of AUTHENTICATION_STATES)
        for (const recovery of CATALOG_RECOVERIES) {
          const e = explain({
            provider: "p1",
            catalog_status,
            authentication,
            relevant: true,
            recovery,
          });
          assert.match(e.sentence, /^p1 \(in use\): [a-z].+\.$/);
          assert.ok(!/undefined/.test(e.sentence + e.action));
          assert.equal(e.recovery, recovery);
        }
    const actions = new Set(
      CATALOG_RECOVERIES.map(
        (recovery) =>
          explain({
            provider: "p",
            catalog_status: "available",
            authentication: "ready",
            relevant: false,
            recovery,
          }).action,
      ),
    );
    assert.equal(actions.size, CATALOG_RECOVERIES.length, "each recovery has its own action");
  });

  it("explains every refresh reason and success", () => {
    const base = {
      provider: "demo",
      catalog_revision: null,
      catalog_error: null,
      recovery: "reload_catalog",
      configuration_reload: "restart_child",
      selection_unchanged: true,
    } as const;
    const sentences = REFRESH_REASONS.map((reason) =>
      explainRefresh({ ...base, outcome: "failed", reason }),
    );
    assert.equal(new Set(sentences).size, REFRESH_REASONS.length);
    for (const s of sentences) assert.match(s, /^demo: refresh failed: .+\.$/);
    assert.equal(
      explainRefresh({ ...base, outcome: "refreshed", reason: null }),
      "demo: catalog refreshed.",
    );
  });

  it("has advice for every wire and client error code", () => {
    for (const code of [...ERROR_CODES, ...CLIENT_ERROR_CODES])
      assert.ok(adviceFor(code).length > 5, code);
  });
});
