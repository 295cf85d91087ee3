import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sessionNewPreloaded } from "./preloaded-agent.js";

/**
 * `session/new` scans the model caches once (docs/acp.md, "Start-up"): the status its
 * credentials' check reads (auth.ts `unreadySelection`) gives the session's config options too
 * (config-options.ts `readCatalog`), paged on through its own cursor, instead of a second
 * `model.catalog` read of the same caches. Counted inside the agent by a preloaded script: each
 * scan starts with an `lstat` of MC_HOME's `cache` folder (store/catalog-cache.ts
 * `checkCacheFolders`); the count is noted as session/new's answer is written.
 */

const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

const PRELOAD = `
const { writeFileSync } = require("node:fs");
const promises = require("node:fs/promises");
const folder = require("node:path").join(process.env.MC_HOME, "cache");
let scans = 0;
const lstat = promises.lstat;
promises.lstat = function (path, ...rest) {
  if (path === folder) scans += 1;
  return lstat.call(this, path, ...rest);
};
const stdout = process.stdout;
const write = stdout.write;
stdout.write = function (chunk, ...rest) {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  if (text.startsWith('{"jsonrpc":"2.0","id":1,'))
    writeFileSync(process.env.MC_TEST_SCANS_AT_ANSWER, String(scans));
  return write.call(this, chunk, ...rest);
};
`;

interface Answer {
  result?: { configOptions: { id: string; options: { value: string }[] }[] };
}

/** session/new's answer in a started agent, and the cache scans made before it was written. */
async function answerAndScans(box: Sandbox): Promise<{ answer: Answer; scans: number }> {
  const noted = join(box.root, "scans.txt");
  const answer = await sessionNewPreloaded(box, PRELOAD, { MC_TEST_SCANS_AT_ANSWER: noted });
  return { answer: answer as Answer, scans: Number(readFileSync(noted, "utf8")) };
}

function modelValues(answer: Answer): string[] {
  const model = answer.result?.configOptions.find((option) => option.id === "model");
  return model?.options.map((option) => option.value) ?? [];
}

function world(moreModels: { id: string; name: string }[]): Sandbox {
  const box = sandbox("mc-acp-one-scan-");
  boxes.push(box);
  writeTurnHome(box, "http://127.0.0.1:9/v1", { moreModels });
  mkdirSync(join(box.root, "tmp"));
  return box;
}

describe("acp: session/new scans the model caches once", () => {
  it("answers with the catalog's options after one scan", async () => {
    const { answer, scans } = await answerAndScans(world([]));
    assert.deepEqual(modelValues(answer), ["kit/kit-1"]);
    assert.equal(scans, 1);
  });

  it("pages the options on through the status read when the catalog has more than a page", async () => {
    // 150 more models: the catalog's 151 choices come in two pages of at most 100.
    const more = Array.from({ length: 150 }, (_, i) => ({ id: `m-${i}`, name: `Model ${i}` }));
    const { answer, scans } = await answerAndScans(world(more));
    assert.deepEqual(
      modelValues(answer).sort(),
      ["kit/kit-1", ...more.map((m) => `kit/${m.id}`)].sort(),
    );
    assert.equal(scans, 1);
  });
});
