import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { sandbox, TestChild } from "../../src/conformance/harness.js";
import { pathOf, sendJson, startLoopback } from "../../src/conformance/loopback.js";
import { probeCapabilities } from "../../src/conformance/probe.js";
import {
  DEMO_KEY,
  PROVIDER_ENV,
  REFRESH_CAPABILITIES,
  readCache,
  writeProviderHome,
} from "../../src/conformance/provider-home.js";
import { auditWire } from "../../src/conformance/wire-audit.js";
import { fuzzCommand } from "./fuzz-driver.js";
import { diff, snapshot } from "./home-snapshot.js";
import {
  BODY_CANARY,
  type ProviderAnswer,
  providerAnswer,
  refreshParams,
} from "./provider-generators.js";

/**
 * model.refresh against a loopback provider whose answers are generated: statuses, valid and
 * invalid model lists, truncated and oversized bodies. After every refresh: one schema-valid
 * response; no body content and no key in any frame; a failed refresh left the cache's bytes
 * as they were; a refreshed one left a whole, valid cache; and nothing else under MC_HOME
 * changed. Seeded like the protocol fuzzer (MC_FUZZ_SEED; MC_FUZZ_REFRESH_RUNS sets the count).
 */
const seed = Number(process.env.MC_FUZZ_SEED ?? Date.now() % 2 ** 31);
const runs = Number(process.env.MC_FUZZ_REFRESH_RUNS ?? 300);
/** Rows of the MC_HOME snapshot a refresh may change: the cache and the folders holding it. */
const MAY_CHANGE = /^(cache|cache\/models|cache\/models\/demo\.json) /;

test(`refresh fuzz: ${runs} provider answers, seed ${seed}`, {
  timeout: 10 * 60_000,
}, async (t) => {
  const offered = await probeCapabilities({ testMethods: true, ...fuzzCommand() });
  if (!REFRESH_CAPABILITIES.every((c) => offered.includes(c))) {
    return t.skip("this build does not offer model.refresh yet");
  }
  let answer: ProviderAnswer = { status: 200, body: Buffer.from("{}") };
  const server = await startLoopback((request, response) => {
    if (pathOf(request) !== "/v1/models") return sendJson(response, 200, {});
    response.writeHead(answer.status, {
      "content-type": "application/json",
      "content-length": answer.body.length,
    });
    response.end(answer.body);
  });
  const box = sandbox("mc-fuzz-refresh-");
  writeProviderHome(box, server.origin);
  let child: TestChild | null = null;
  const fresh = async () => {
    await child?.close();
    child = new TestChild({
      cwd: box.workspace,
      home: box.home,
      env: PROVIDER_ENV,
      ...fuzzCommand(),
    });
    const init = await child.initialize(REFRESH_CAPABILITIES);
    assert.ok(init.result, JSON.stringify(init.error));
    return child;
  };
  let count = 0;
  const tally = new Map<string, number>();
  try {
    await fc.assert(
      fc.asyncProperty(providerAnswer, refreshParams, async (generated, params) => {
        const current = count++ % 500 === 0 || child === null ? await fresh() : child;
        answer = generated;
        const before = snapshot(box.home);
        const cacheBefore = readCache(box, "demo");
        const frame = await current.request("model.refresh", params, undefined, 60_000);
        const problems = auditWire({
          sent: current.sent.slice(-1),
          received: [frame],
          forbidden: [box.root, BODY_CANARY, "http"],
          secrets: [DEMO_KEY, BODY_CANARY],
        });
        assert.deepEqual(problems, []);
        const outcome = frame.result?.outcome;
        const key = String(frame.result?.reason ?? outcome ?? frame.error?.code);
        tally.set(key, (tally.get(key) ?? 0) + 1);
        if (outcome !== "refreshed") {
          assert.deepEqual(readCache(box, "demo"), cacheBefore, "a failed refresh kept the cache");
        } else {
          const cache = JSON.parse(String(readCache(box, "demo"))) as { models: { id: string }[] };
          const ids = cache.models.map((m) => m.id);
          assert.equal(new Set(ids).size, ids.length, "cache IDs are unique");
        }
        const changed = diff(before, snapshot(box.home)).filter(
          (row) => !MAY_CHANGE.test(row.slice(2)),
        );
        assert.deepEqual(changed, [], "only the provider's cache may change");
        const folder = join(box.home, "cache", "models");
        const leftovers = existsSync(folder)
          ? readdirSync(folder).filter((name) => name !== "demo.json")
          : [];
        assert.deepEqual(leftovers, [], "no temporary files left behind");
      }),
      { seed, numRuns: runs, includeErrorInReport: true },
    );
    t.diagnostic(`outcomes: ${[...tally].map(([k, n]) => `${k} ${n}`).join(", ")}`);
  } finally {
    await (child as TestChild | null)?.close();
    await server.close();
    box.cleanup();
  }
});
