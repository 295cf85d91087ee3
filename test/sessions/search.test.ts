import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ProtocolError } from "../../src/protocol/codes.js";
import {
  forgetSearchEntries,
  workspaceIndexFolder,
} from "../../src/sessions/search/search-index.js";
import { SearchIndexWriter } from "../../src/sessions/search/search-index-writer.js";
import { type SearchHit, SearchScan } from "../../src/sessions/search/search-scan.js";
import { SNIPPET_MAX_CHARS } from "../../src/sessions/search/search-text.js";
import { fileSignature } from "../../src/store/inventory.js";

const TS = "2026-11-29T10:00:00.000Z";

function place() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mc-search-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  const cacheFolder = join(root, "cache", "sessions-x");
  mkdirSync(join(home, "sessions"), { recursive: true });
  mkdirSync(workspace);
  const writer = new SearchIndexWriter();
  return { root, home, workspace, cache: { cacheFolder, writer }, cacheFolder, writer };
}

function history(home: string, id: string, cwd: string, records: object[], folder = "") {
  const lines = [{ type: "session_meta", ts: TS, cwd, id }, ...records].map((record) =>
    JSON.stringify({ ts: TS, cwd, ...record }),
  );
  const dir = join(home, "sessions", folder);
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`);
}

async function searchAll(scan: SearchScan): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (;;) {
    const step = await scan.step(new AbortController().signal);
    hits.push(...step.hits);
    if (step.complete) return hits;
  }
}

function cancelledWith(code: string) {
  return (error: unknown) => error instanceof ProtocolError && error.code === code;
}

describe("session.search scan", () => {
  it("finds a user message, an assistant message and a title, case-insensitively, in this workspace only", async () => {
    const { home, workspace, cache } = place();
    history(home, "s1", workspace, [
      { type: "user_message", text: "Why does the Zebra cache fail?" },
      { type: "title", title: "ZEBRA title" },
      { type: "assistant_message", text: "The zebra clock.", model: "demo/demo-1" },
      { type: "mode", mode: "plan" },
    ]);
    history(home, "other", "/other/workspace", [{ type: "user_message", text: "zebra too" }]);
    const hits = await searchAll(new SearchScan(home, workspace, "zebra", false, cache));
    assert.deepEqual(
      hits.map((hit) => [hit.id, hit.record_index]),
      [
        ["s1", 1],
        ["s1", 2],
        ["s1", 3],
      ],
    );
    assert.equal(hits[1]?.title, "ZEBRA title");
    assert.equal(hits[0]?.snippet, "Why does the Zebra cache fail?");
  });

  it("a second search reads only what changed, from the index outside MC_HOME", async () => {
    const { home, workspace, cache, cacheFolder, writer } = place();
    history(home, "a", workspace, [{ type: "user_message", text: "needle one" }]);
    history(home, "b", workspace, [{ type: "user_message", text: "nothing" }]);
    const first = new SearchScan(home, workspace, "needle", false, cache);
    await searchAll(first);
    assert.deepEqual(first.counts, { indexed: 0, read: 2 });
    await writer.idle();
    assert.ok(existsSync(join(workspaceIndexFolder(cacheFolder, workspace), "a.json")));
    assert.deepEqual(readdirSync(join(home, "sessions")).sort(), ["a.jsonl", "b.jsonl"]);
    appendFileSync(
      join(home, "sessions", "b.jsonl"),
      `${JSON.stringify({ type: "user_message", ts: TS, cwd: workspace, text: "Needle two" })}\n`,
    );
    const second = new SearchScan(home, workspace, "needle", false, cache);
    const hits = await searchAll(second);
    assert.deepEqual(second.counts, { indexed: 1, read: 1 });
    assert.deepEqual(hits.map((hit) => hit.id).sort(), ["a", "b"]);
    forgetSearchEntries(cacheFolder, workspace, "a");
    assert.ok(!existsSync(join(workspaceIndexFolder(cacheFolder, workspace), "a.json")));
  });

  it("searches the archive when asked, and only then", async () => {
    const { home, workspace, cache } = place();
    history(home, "live", workspace, [{ type: "user_message", text: "needle" }]);
    history(home, "old", workspace, [{ type: "user_message", text: "needle" }], "archive");
    const live = await searchAll(new SearchScan(home, workspace, "needle", false, cache));
    const archived = await searchAll(new SearchScan(home, workspace, "needle", true, cache));
    assert.deepEqual(
      live.map((hit) => hit.id),
      ["live"],
    );
    assert.deepEqual(
      archived.map((hit) => hit.id),
      ["old"],
    );
  });

  it("cancelled answers operation_cancelled; a changed store answers stale_revision", async () => {
    const { home, workspace, cache } = place();
    history(home, "a", workspace, [{ type: "user_message", text: "needle" }]);
    const controller = new AbortController();
    controller.abort();
    const scan = new SearchScan(home, workspace, "needle", false, cache);
    await assert.rejects(scan.step(controller.signal), cancelledWith("operation_cancelled"));
    const changing = new SearchScan(home, workspace, "needle", false, cache);
    history(home, "late", workspace, [{ type: "user_message", text: "x" }]);
    await assert.rejects(searchAll(changing), cancelledWith("stale_revision"));
  });

  it("bounds: query 1..256 characters; a snippet at most 200", async () => {
    const { home, workspace, cache } = place();
    history(home, "long", workspace, [
      { type: "user_message", text: `${"a".repeat(10)}b${"a".repeat(500)}` },
    ]);
    const [hit] = await searchAll(new SearchScan(home, workspace, "b", false, cache));
    assert.equal(hit?.snippet.length, SNIPPET_MAX_CHARS);
    await searchAll(new SearchScan(home, workspace, "a".repeat(256), false, cache));
    for (const query of ["", "a".repeat(257)])
      assert.throws(
        () => new SearchScan(home, workspace, query, false, cache),
        cancelledWith("invalid_params"),
      );
  });
});

describe("the search index's writer", () => {
  it("a step writes no entry itself (the writer starts after it); every entry once the search completed", async () => {
    const { home, workspace, cache, cacheFolder, writer } = place();
    for (let i = 0; i < 5; i += 1)
      history(home, `h${i}`, workspace, [
        { type: "user_message", text: `needle ${i} ${"w".repeat(40_000)}` },
      ]);
    // A clock past each step's deadline at every reading (the slicer reads it every 32 KiB of
    // work): one history a step.
    let now = 0;
    const scan = new SearchScan(home, workspace, "zzz", false, cache, () => {
      now += 1000;
      return now;
    });
    const folder = workspaceIndexFolder(cacheFolder, workspace);
    const first = await scan.step(new AbortController().signal);
    assert.equal(first.complete, false);
    assert.ok(scan.counts.read >= 1);
    // The step has returned and no I/O callback has run since: had the step written its entry
    // (synchronously, as before the writer), it would be there.
    assert.equal(existsSync(folder) ? readdirSync(folder).length : 0, 0);
    for (;;) if ((await scan.step(new AbortController().signal)).complete) break;
    await writer.idle();
    assert.deepEqual(readdirSync(folder).sort(), [
      "h0.json",
      "h1.json",
      "h2.json",
      "h3.json",
      "h4.json",
    ]);
  });

  it("an entry whose history was deleted or changed before it was written is not kept", async () => {
    const { home, workspace, cache, cacheFolder, writer } = place();
    history(home, "gone", workspace, [{ type: "user_message", text: "needle" }]);
    history(home, "grown", workspace, [{ type: "user_message", text: "needle" }]);
    await searchAll(new SearchScan(home, workspace, "needle", false, cache));
    rmSync(join(home, "sessions", "gone.jsonl"));
    history(home, "grown", workspace, [{ type: "user_message", text: "more" }]);
    await writer.idle();
    const folder = workspaceIndexFolder(cacheFolder, workspace);
    assert.deepEqual(existsSync(folder) ? readdirSync(folder) : [], []);
  });

  it("a full queue ends the step and the next one waits for room: a large store's whole index, none dropped", async () => {
    const { home, workspace, cacheFolder } = place();
    for (let i = 0; i < 6; i += 1)
      history(home, `h${i}`, workspace, [
        { type: "user_message", text: `${"w".repeat(5000)} ${i}` },
      ]);
    // A bound under one entry: the queue is full whenever an entry waits behind the write.
    const writer = new SearchIndexWriter(1000);
    const scan = new SearchScan(home, workspace, "zzz", false, { cacheFolder, writer });
    for (;;) if ((await scan.step(new AbortController().signal)).complete) break;
    await writer.idle();
    const folder = workspaceIndexFolder(cacheFolder, workspace);
    assert.equal(readdirSync(folder).filter((n) => n.endsWith(".json")).length, 6);
    assert.equal(writer.written, 6);
  });

  it("the writer: full past its bound, room once half is written, even while a step holds it", async () => {
    const { home, workspace, cacheFolder } = place();
    const folder = workspaceIndexFolder(cacheFolder, workspace);
    const writer = new SearchIndexWriter(1000);
    const release = writer.hold();
    for (const id of ["a", "b", "c"]) {
      history(home, id, workspace, [{ type: "user_message", text: id }]);
      const path = join(home, "sessions", `${id}.jsonl`);
      const signature = fileSignature(lstatSync(path, { bigint: true }));
      writer.enqueue(folder, id, "x".repeat(600), path, signature);
    }
    // The first went to be written at once (past a quarter of the bound); two wait: 1200 bytes.
    assert.equal(writer.full, true);
    await writer.room();
    assert.equal(writer.full, false);
    release();
    await writer.idle();
    assert.deepEqual(readdirSync(folder).sort(), ["a.json", "b.json", "c.json"]);
  });

  it("a warm search finds what a cold one does, for quotes, backslashes, newlines and non-ASCII; a torn entry is a miss", async () => {
    const { home, workspace, cache, cacheFolder, writer } = place();
    history(home, "odd", workspace, [
      { type: "user_message", text: 'Path C:\\Temp\\X and say "HI" now' },
      { type: "assistant_message", text: "line one\nLINE TWO \u001b[1m Ünïcode ÆØÅ", model: "m" },
    ]);
    // U+212A (the Kelvin sign) lowers to an ASCII "k": its entry cannot take the byte path.
    history(home, "kelvin", workspace, [{ type: "user_message", text: "cooled to 5 \u212A" }]);
    const queries = ["c:\\temp", '"hi"', "one\nline", "æøå", "\u001b[1", "ünï", "5 k"];
    const cold: string[][] = [];
    for (const query of queries) {
      const scan = new SearchScan(home, workspace, query, false, null);
      cold.push((await searchAll(scan)).map((hit) => `${hit.record_index}:${hit.snippet}`));
    }
    assert.ok(
      cold.every((hits) => hits.length === 1),
      JSON.stringify(cold),
    );
    await searchAll(new SearchScan(home, workspace, "x", false, cache));
    await writer.idle();
    for (const [i, query] of queries.entries()) {
      const warm = new SearchScan(home, workspace, query, false, cache);
      const hits = (await searchAll(warm)).map((hit) => `${hit.record_index}:${hit.snippet}`);
      assert.deepEqual(hits, cold[i], query);
      assert.deepEqual(warm.counts, { indexed: 2, read: 0 }, query);
    }
    const entry = join(workspaceIndexFolder(cacheFolder, workspace), "odd.json");
    const text = readFileSync(entry, "utf8");
    writeFileSync(entry, text.slice(0, text.length - 10));
    const torn = new SearchScan(home, workspace, "æøå", false, cache);
    assert.equal((await searchAll(torn)).length, 1);
    assert.deepEqual(torn.counts, { indexed: 1, read: 1 }, "a torn entry is a miss");
  });
});
