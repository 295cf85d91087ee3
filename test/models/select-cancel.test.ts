import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { nextId, type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import {
  cacheDoc,
  DEMO_MODELS,
  demoConfig,
  MODEL_CAPS,
  writeCache,
  writeConfig,
} from "./fixtures.js";

/**
 * model.select and operation.cancel for it in one write: the answer matches the effect. A
 * cancelled select leaves the selection as it was; a result means the selection changed.
 */
const DEMO_URL = "http://127.0.0.1:9/v1";
const EFFORTS = ["low", "medium", "high"];

let box: Sandbox;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  box.cleanup();
});

describe("model.select cancelled in the same write", () => {
  test("operation_cancelled keeps the selection; a result changed it", async () => {
    box = sandbox();
    writeConfig(box, { ...demoConfig(DEMO_URL), model: "demo/demo-1", effort: "medium" });
    writeCache(
      box,
      "demo",
      cacheDoc("demo", { type: "openai-compatible", base_url: DEMO_URL }, DEMO_MODELS),
    );
    const c = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    child = c;
    const revision = (await c.call("model.catalog", {})).revision;
    for (let round = 0; round < 9; round += 1) {
      const before = (await c.call("status", {})).selection;
      const effort = EFFORTS.find((e) => e !== before.effort) as string;
      const id = nextId("select");
      const cancelId = nextId("cancel");
      const terminal = c.waitFor((f) => f.id === id, 15_000);
      const ack = c.waitFor((f) => f.id === cancelId, 15_000);
      const params = { model: "demo/demo-1", effort, catalog_revision: revision };
      c.send(
        `${JSON.stringify({ id, method: "model.select", params })}\n` +
          `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: id } })}\n`,
      );
      const [answer, cancel] = [await terminal, await ack];
      const after = (await c.call("status", {})).selection;
      const what = `round ${round}: ${JSON.stringify(answer)} / ${JSON.stringify(cancel)}`;
      if (answer.error) {
        assert.equal(answer.error.code, "operation_cancelled", what);
        assert.deepEqual(after, before, `${what}: a cancelled select changed the selection`);
      } else {
        assert.deepEqual(after, { model: "demo/demo-1", effort }, what);
      }
    }
  });
});
