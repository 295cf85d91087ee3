import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { discoverAll, listAll, startSessions } from "../helpers/sessions.js";

/**
 * The real child lists a store of records that take the scanner's every branch (escaped keys
 * and values, duplicate keys, a cwd replaced, large and deep records, invalid ones) exactly as
 * the same child on the JSON.parse path (MC_AGENT_RECORD_SCAN=parse), in both listings.
 */
const TS = "2026-01-01T00:00:00.000Z";

describe("the record scanner in the child (MC_AGENT_RECORD_SCAN)", () => {
  let box: Sandbox;

  before(() => {
    box = sandbox();
    const store = new StoreBuilder(box.home, box.workspace, 31);
    const cwd = JSON.stringify(box.workspace);
    const lines = (id: string, ...records: string[]) =>
      store.raw(`${id}.jsonl`, `${records.join("\n")}\n`);
    lines(
      "escapes",
      `{"t\\u0079pe":"user_message","ts":"${TS}","cwd":${cwd},"text":"caf\\u00e9 \\ud83c\\udf89\\nsecond"}`,
      `{"type":"title","ts":"${TS}","title":"T\\u0131tle \\ud800"}`,
    );
    lines(
      "duplicates",
      `{"type":"mode","type":"title","ts":"x","ts":"${TS}","cwd":"/elsewhere","cwd":${cwd},"title":"a","title":"last"}`,
    );
    lines("null-then-cwd", `{"type":"mode","ts":"${TS}","cwd":null,"cwd":${cwd}}`);
    lines("cwd-then-null", `{"type":"mode","ts":"${TS}","cwd":${cwd},"cwd":null}`);
    lines("foreign", `{"type":"mode","ts":"${TS}","cwd":"/other/place"}`);
    lines("bad-number", `{"type":"mode","ts":"${TS}","cwd":${cwd},"n":01}`);
    lines("trailing-comma", `{"type":"mode","ts":"${TS}","cwd":${cwd},}`);
    const deep = 20_000;
    lines(
      "deep",
      `{"type":"mode","ts":"${TS}","cwd":${cwd},"v":${"[".repeat(deep)}${"]".repeat(deep)}}`,
    );
    store.raw("torn.jsonl", `{"type":"mode","ts":"${TS}","cwd":${cwd}}\n{"type":"mo`);
    store.sized("large", 600 * 1024, 40 * 1024);
    store.chat("plain", { title: "A plain chat" });
  });
  after(() => box?.cleanup());

  /** Both listings of one child, with `env`. */
  async function listings(env: Record<string, string>) {
    const child = await startSessions(box, { env: { MC_AGENT_VERDICTS: "off", ...env } });
    try {
      const listed = await listAll(child);
      const discovered = await discoverAll(child);
      const rows = (pages: { sessions: { id: string }[] }[]) =>
        pages.flatMap((p) => p.sessions).sort((a, b) => a.id.localeCompare(b.id));
      const last = discovered.pages.at(-1) as unknown as Record<string, unknown>;
      return { list: rows(listed.pages), discover: rows(discovered.pages), notices: last.notices };
    } finally {
      await child.close();
    }
  }

  it("lists what the JSON.parse path lists, row for row", async () => {
    const scanned = await listings({});
    const parsed = await listings({ MC_AGENT_RECORD_SCAN: "parse" });
    assert.deepEqual(scanned, parsed);
    const ids = scanned.list.map((row) => row.id);
    for (const id of ["escapes", "duplicates", "null-then-cwd", "deep", "torn", "large", "plain"])
      assert.ok(ids.includes(id), `${id} is listed`);
    for (const id of ["cwd-then-null", "foreign", "bad-number", "trailing-comma"])
      assert.ok(!ids.includes(id), `${id} is not listed`);
    const titles = Object.fromEntries(
      scanned.list.map((row) => [row.id, (row as unknown as { title: unknown }).title]),
    );
    assert.match(String(titles.escapes), /^T\u0131tle /);
    assert.equal(titles.duplicates, "last");
  });
});
