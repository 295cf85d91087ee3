import assert from "node:assert/strict";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { unprivilegedChild } from "../helpers/unprivileged.js";
import {
  cacheDoc,
  cacheFile,
  DEMO_MODELS,
  demoConfig,
  MODEL_CAPS,
  writeCache,
  writeConfig,
} from "./fixtures.js";

const MiB = 1_048_576;
const DEMO_URL = "http://127.0.0.1:9/v1";
const identity = { type: "openai-compatible", base_url: DEMO_URL };

let box: Sandbox;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  box.cleanup();
});

/** A valid cache document of `count` models padded with trailing spaces to exactly `bytes`. */
function paddedCache(count: number, bytes: number): string {
  const models = Array.from({ length: count }, (_, i) => ({
    id: `m-${String(i).padStart(4, "0")}`,
    name: `Model ${i} `.padEnd(250, "x"),
    efforts: ["low", "high"],
    default_effort: "low",
  }));
  const text = JSON.stringify(cacheDoc("demo", identity, models));
  assert.ok(text.length <= bytes, `fixture too big: ${text.length}`);
  return text + " ".repeat(bytes - text.length);
}

function manyConfig(count: number) {
  return {
    ...demoConfig(DEMO_URL),
    enabled_models: Array.from({ length: count }, (_, i) => `demo/m-${String(i).padStart(4, "0")}`),
  };
}

async function expectBothFail(code: string): Promise<void> {
  assert.ok(child);
  assert.equal(await child.errorCode("model.catalog", {}), code);
  assert.equal(await child.errorCode("model.catalog.status", {}), code);
}

describe("catalog cache bounds and safety", () => {
  test("32 providers with the longest names, all relevant and noticed, still fit every page", async () => {
    box = sandbox();
    const providers: Record<string, unknown> = {};
    const enabled: string[] = [];
    for (let i = 0; i < 28; i++) {
      const id = `p${String(i).padStart(2, "0")}`.padEnd(250, "x");
      providers[id] = { ...identity };
      enabled.push(`${id}/m`);
    }
    const longest = `${"q".repeat(100)}`;
    providers[longest] = { ...identity };
    const models = Array.from({ length: 150 }, (_, i) => ({
      id: `m-${String(i).padStart(3, "0")}`.padEnd(150, "y"),
      name: "n".repeat(256),
      efforts: Array.from({ length: 16 }, (_, e) => `effort-${e}`.padEnd(32, "z")),
      default_effort: "effort-0".padEnd(32, "z"),
    }));
    for (const m of models) enabled.push(`${longest}/${m.id}`);
    writeConfig(box, { providers, enabled_models: enabled, effort: "high" });
    writeCache(box, longest, cacheDoc(longest, identity, models));
    child = await startReady(box, MODEL_CAPS);
    let cursor: string | null = null;
    let seen = 0;
    do {
      const page: {
        providers: unknown[];
        notices: unknown[];
        choices: unknown[];
        cursor: string | null;
      } = await child.call("model.catalog.status", cursor ? { cursor } : {});
      assert.equal(page.providers.length, 32);
      assert.equal(page.notices.length, 28);
      assert.ok(Buffer.byteLength(JSON.stringify(page)) <= 32_768);
      seen += page.choices.length;
      cursor = page.cursor;
    } while (cursor);
    assert.equal(seen, 150);
  });

  test("a 33rd provider makes the settings invalid", async () => {
    box = sandbox();
    const providers: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) providers[`p${i}`] = { ...identity };
    writeConfig(box, { providers });
    child = await startReady(box, MODEL_CAPS);
    const status = await child.call("model.catalog.status", {});
    assert.deepEqual(status.notices, [{ code: "configuration_invalid" }]);
    assert.equal(status.providers.length, 3);
  });

  test("a symlinked cache is catalog_unavailable, not a status", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    const elsewhere = join(box.root, "elsewhere.json");
    writeFileSync(elsewhere, JSON.stringify(cacheDoc("demo", identity, DEMO_MODELS)));
    mkdirSync(join(box.home, "cache", "models"), { recursive: true });
    symlinkSync(elsewhere, cacheFile(box, "demo"));
    child = await startReady(box, MODEL_CAPS);
    await expectBothFail("catalog_unavailable");
  });

  test("a symlinked cache folder is catalog_unavailable", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    const real = join(box.root, "real-models");
    mkdirSync(real);
    writeFileSync(join(real, "demo.json"), JSON.stringify(cacheDoc("demo", identity, DEMO_MODELS)));
    mkdirSync(join(box.home, "cache"));
    symlinkSync(real, join(box.home, "cache", "models"));
    child = await startReady(box, MODEL_CAPS);
    await expectBothFail("catalog_unavailable");
  });

  test("a FIFO in place of a cache is catalog_unavailable (and does not block)", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    mkdirSync(join(box.home, "cache", "models"), { recursive: true });
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [cacheFile(box, "demo")]);
    child = await startReady(box, MODEL_CAPS);
    await expectBothFail("catalog_unavailable");
  });

  test("an unreadable cache is catalog_unavailable", async (t) => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    writeCache(box, "demo", cacheDoc("demo", identity, DEMO_MODELS));
    chmodSync(cacheFile(box, "demo"), 0o000);
    const run = unprivilegedChild(box);
    if ("skip" in run) return t.skip(run.skip);
    child = await startReady(box, MODEL_CAPS, run.options);
    await expectBothFail("catalog_unavailable");
  });

  test("1 MiB + 1 byte is catalog_limit; exactly 1 MiB is read", async () => {
    box = sandbox();
    writeConfig(box, manyConfig(3));
    writeFileSync(cacheFile2(box), paddedCache(3, MiB + 1));
    child = await startReady(box, MODEL_CAPS);
    await expectBothFail("catalog_limit");
    writeFileSync(cacheFile2(box), paddedCache(3, MiB));
    const catalog = await child.call("model.catalog", {});
    assert.equal(catalog.choices.length, 3);
  });

  test("2049 entries is catalog_limit", async () => {
    box = sandbox();
    writeConfig(box, manyConfig(3));
    const models = Array.from({ length: 2049 }, (_, i) => ({
      id: `m-${String(i).padStart(4, "0")}`,
    }));
    writeCache(box, "demo", cacheDoc("demo", identity, models));
    child = await startReady(box, MODEL_CAPS);
    await expectBothFail("catalog_limit");
  });

  test("a 2048-entry cache of exactly 1 MiB works and pages within the bounds", async () => {
    box = sandbox();
    writeConfig(box, manyConfig(2048));
    const text = paddedCache(2048, MiB);
    assert.equal(Buffer.byteLength(text), MiB);
    writeFileSync(cacheFile2(box), text);
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    for (const method of ["model.catalog", "model.catalog.status"] as const) {
      const ids: string[] = [];
      let cursor: string | null | undefined;
      let revision: string | undefined;
      let pages = 0;
      let usedCursor: string | undefined;
      do {
        const result: {
          revision: string;
          choices: { id: string }[];
          cursor: string | null;
          complete: boolean;
        } = await child.call(method, cursor ? { cursor } : {});
        pages += 1;
        assert.ok(Buffer.byteLength(JSON.stringify(result)) <= 32_768, "page byte bound");
        assert.ok(result.choices.length <= 100, "page entry bound");
        assert.ok(result.choices.length > 0);
        revision ??= result.revision;
        assert.equal(result.revision, revision);
        ids.push(...result.choices.map((c) => c.id));
        if (cursor) usedCursor = cursor;
        cursor = result.cursor;
        assert.equal(result.complete, cursor === null);
      } while (cursor);
      assert.equal(ids.length, 2048);
      assert.equal(new Set(ids).size, 2048);
      assert.ok(pages > 2048 / 100, "the byte bound split pages too");
      assert.ok(usedCursor);
      // Cursors are single use.
      assert.equal(await child.errorCode(method, { cursor: usedCursor }), "stale_revision");
    }
  });

  test("a catalog cursor is not a status cursor; a malformed one is invalid_params", async () => {
    box = sandbox();
    writeConfig(box, manyConfig(300));
    const models = Array.from({ length: 300 }, (_, i) => ({
      id: `m-${String(i).padStart(4, "0")}`,
    }));
    writeCache(box, "demo", cacheDoc("demo", identity, models));
    child = await startReady(box, MODEL_CAPS);
    const first = await child.call("model.catalog", {});
    assert.equal(first.choices.length, 100);
    assert.ok(first.cursor);
    assert.equal(
      await child.errorCode("model.catalog.status", { cursor: first.cursor }),
      "stale_revision",
    );
    assert.equal(await child.errorCode("model.catalog", { cursor: "é" }), "invalid_params");
    assert.equal(
      await child.errorCode("model.catalog", { cursor: "x".repeat(65) }),
      "invalid_params",
    );
  });
});

function cacheFile2(b: Sandbox): string {
  mkdirSync(join(b.home, "cache", "models"), { recursive: true });
  return cacheFile(b, "demo");
}
