import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AgentClient, type Capability, MAX_OPTIONAL } from "../../src/client/index.js";
import { largestFirst } from "../../src/client/optional.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { SCRIPTED_CHILD, scriptedDir, spawnCount, within } from "../helpers/fakes.js";

/**
 * SpawnOptions.optional: each optional capability negotiated on its own, on one child (a
 * refused initialize leaves it uninitialized, base-protocol §4), against the scripted child
 * whose real Dispatcher refuses what FAKE_CAPABILITIES leaves out.
 */
describe("SDK: optional capabilities", () => {
  let box: Sandbox;
  before(() => {
    box = sandbox();
  });
  after(() => box.cleanup());

  let run = 0;
  const spawnWith = (offered: string, capabilities: Capability[], optional: Capability[]) => {
    run += 1;
    const dir = scriptedDir(join(box.root, `run-${run}`), {});
    const spawned = AgentClient.spawn({
      cwd: box.workspace,
      command: SCRIPTED_CHILD,
      env: { PATH: process.env.PATH, FAKE_DIR: dir, FAKE_CAPABILITIES: offered },
      capabilities,
      optional,
    });
    return { dir, spawned };
  };
  const initializes = (dir: string) =>
    readFileSync(join(dir, "requests.log"), "utf8")
      .split("\n")
      .filter((method) => method === "initialize").length;

  it("a child offering some of them grants exactly those, on one child", async () => {
    const { dir, spawned } = spawnWith(
      "session.open,session.history,model.catalog",
      ["session.open"],
      ["session.discover", "session.history", "model.catalog", "model.refresh"],
    );
    const client = await within(spawned);
    await within(client.close());
    assert.deepEqual([...client.capabilities].sort(), [
      "model.catalog",
      "session.history",
      "session.open",
    ]);
    assert.equal(spawnCount(dir), 1, "no second child");
    // The 4-, 3- and 2-subsets with session.discover or model.refresh were refused first.
    assert.equal(initializes(dir), 9);
  });

  it("a child offering all of them answers the first initialize", async () => {
    const { dir, spawned } = spawnWith(
      "session.open,session.history",
      ["session.open"],
      ["session.history"],
    );
    const client = await within(spawned);
    await within(client.close());
    assert.ok(client.has("session.history"));
    assert.equal(initializes(dir), 1);
  });

  it(`MAX_OPTIONAL (${MAX_OPTIONAL}) none offered: every subset asked, then the required alone`, async () => {
    const optional: Capability[] = [
      "session.discover",
      "session.history",
      "session.record",
      "model.catalog",
      "model.refresh",
      "model.select",
    ];
    assert.equal(optional.length, MAX_OPTIONAL);
    const { dir, spawned } = spawnWith("session.open", ["session.open"], optional);
    const client = await within(spawned);
    await within(client.close());
    assert.deepEqual([...client.capabilities], ["session.open"]);
    assert.equal(initializes(dir), 2 ** MAX_OPTIONAL);
  });

  it("one past MAX_OPTIONAL is refused before any child starts", async () => {
    const optional: Capability[] = [
      "session.discover",
      "session.history",
      "session.record",
      "model.catalog",
      "model.refresh",
      "model.select",
      "operation.cancel",
    ];
    const { dir, spawned } = spawnWith("session.open", ["session.open"], optional);
    await assert.rejects(spawned, RangeError);
    assert.equal(spawnCount(dir), 0);
  });

  it("a required capability the child lacks is still refused, after the optional ones", async () => {
    const { spawned } = spawnWith("session.open", ["session.discover"], ["session.open"]);
    await assert.rejects(
      spawned,
      (e: unknown) =>
        e instanceof Error &&
        "code" in e &&
        e.code === "unsupported_capability" &&
        /session\.discover/.test(e.message),
    );
  });

  it("largestFirst: larger subsets first, and among equals the earlier names kept", () => {
    assert.deepEqual(largestFirst(["a", "b", "c"]), [
      ["a", "b", "c"],
      ["a", "b"],
      ["a", "c"],
      ["b", "c"],
      ["a"],
      ["b"],
      ["c"],
      [],
    ]);
    assert.deepEqual(largestFirst([]), [[]]);
  });
});
