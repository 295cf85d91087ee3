import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";

function build(seed: number): Map<string, string> {
  const home = mkdtempSync(join(tmpdir(), "mc-builder-"));
  try {
    const store = new StoreBuilder(home, "/work/app", seed);
    for (let i = 0; i < 5; i += 1) store.chat(`c${i}`, { title: i === 2 ? "T" : undefined });
    store.chat("foreign", { cwd: "/elsewhere" });
    store.empty("legacy");
    store.mixed("mixed", 3);
    store.malformed("bad", "invalid_utf8");
    store.subagent("c1");
    store.lock("c1");
    store.sized("sized", 100_000, 900);
    const files = new Map<string, string>();
    for (const name of readdirSync(store.root).sort())
      files.set(name, readFileSync(join(store.root, name)).toString("base64"));
    return files;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe("StoreBuilder", () => {
  it("writes byte-identical stores for the same seed and different ones for another", () => {
    assert.deepEqual(build(5), build(5));
    assert.notDeepEqual(build(5), build(6));
  });

  it("writes a sized history of exactly the requested length", () => {
    const files = build(7);
    assert.equal(Buffer.from(files.get("sized.jsonl") as string, "base64").length, 100_000);
  });
});
