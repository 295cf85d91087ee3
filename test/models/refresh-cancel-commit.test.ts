import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { nextId, type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { closedPort, type FakeServer, json, openAiList, startServer } from "./fake-server.js";
import {
  cacheDoc,
  cacheFile,
  DEMO_MODELS,
  MODEL_CAPS,
  writeCache,
  writeConfig,
} from "./fixtures.js";

/**
 * The cache rename is a refresh's commit point: a cancel observed before it writes nothing, and
 * a rename once issued makes the refresh answer its outcome. Swept from outside: the provider
 * answers after a varying delay, and the cancel follows its answer after another varying delay,
 * so that it lands in every phase (listing, enrichment, validation, the write, the rescan).
 * Whatever the timing: `operation_cancelled` never leaves new bytes on disk, and `refreshed`
 * always does.
 */
let box: Sandbox;
let server: FakeServer | undefined;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  await server?.close();
  server = undefined;
  box.cleanup();
});

const TRIALS = 90;
/** A large listing, unique to its trial, so that every refresh writes new bytes. */
const listing = (trial: number) =>
  openAiList(Array.from({ length: 1500 }, (_, i) => `demo-${trial}-${i}-${"x".repeat(40)}`));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("refresh cancellation against the commit point", () => {
  test("swept delays: operation_cancelled never comes with new cache bytes", async () => {
    box = sandbox();
    let trial = 0;
    let answered: () => void = () => {};
    server = await startServer((_req, res) => {
      const body = listing(trial);
      setTimeout(
        () => {
          res.once("finish", () => answered());
          json(res, 200, body);
        },
        trial % 3 === 0 ? 0 : trial % 7,
      );
    });
    const baseUrl = `${server.url}/v1`;
    writeConfig(box, {
      providers: {
        demo: { type: "openai-compatible", base_url: baseUrl, api_key_env: "DEMO_KEY" },
      },
      enabled_models: ["demo/demo-1"],
      models_dev_url: `${await closedPort()}/api.json`,
    });
    const identity = { type: "openai-compatible", base_url: baseUrl };
    writeCache(box, "demo", cacheDoc("demo", identity, DEMO_MODELS));
    const c = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    child = c;
    const seen = { cancelled: 0, refreshed: 0 };
    for (; trial < TRIALS; trial += 1) {
      const before = readFileSync(cacheFile(box, "demo"));
      const listed = new Promise<void>((resolve) => {
        answered = resolve;
      });
      const id = nextId("refresh");
      const pending = c.request("model.refresh", { provider: "demo" }, id, 30_000);
      await listed;
      await sleep(Math.floor(trial / 3) % 30);
      const ack = await c.request("operation.cancel", { request_id: id }, nextId("cancel"));
      const answer = await pending;
      const after = readFileSync(cacheFile(box, "demo"));
      const what = `trial ${trial}: ${JSON.stringify(answer)}`;
      if (answer.error) {
        assert.equal(answer.error.code, "operation_cancelled", what);
        assert.ok(ack.result, `${what}: cancelled without an acknowledged cancel`);
        assert.ok(after.equals(before), `${what}: cancelled, yet the cache was replaced`);
        seen.cancelled += 1;
      } else {
        assert.equal(answer.result?.outcome, "refreshed", what);
        assert.ok(!after.equals(before), `${what}: refreshed, yet the cache is unchanged`);
        seen.refreshed += 1;
      }
    }
    // Which outcome a trial gets depends on the machine's speed; both are allowed.
    console.log(`# refresh sweep: ${seen.cancelled} cancelled, ${seen.refreshed} refreshed`);
  });
});
