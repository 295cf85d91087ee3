import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import {
  AgentClient,
  type Caller,
  RemoteError,
  SEARCH_RESTARTS,
  type SearchHit,
  searchSessions,
} from "../../src/client/index.js";
import { writeSmallHistory } from "../../src/conformance/session-store.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { within } from "../helpers/fakes.js";

/**
 * The SDK's `client.search` against the real child: every hit of every page, as they come; a
 * store changed during the search (`stale_revision`) restarts it without a cursor, and no hit
 * is handed out twice; a search that stays stale gives up after SEARCH_RESTARTS.
 */
let box: Sandbox | undefined;
let client: AgentClient | undefined;
afterEach(async () => {
  if (client) await within(client.close());
  client = undefined;
  box?.cleanup();
  box = undefined;
});

async function spawn(target: Sandbox): Promise<AgentClient> {
  return within(
    AgentClient.spawn({
      cwd: target.workspace,
      env: { PATH: process.env.PATH, MC_HOME: target.home, HOME: target.home },
      capabilities: ["session.discover", "session.search", "operation.cancel"],
    }),
  );
}

describe("SDK: client.search", () => {
  it("a session added between pages: the search restarts, every hit handed out exactly once", async () => {
    box = sandbox();
    for (let i = 0; i < 150; i += 1) writeSmallHistory(box, `m${i}`, `needle ${i}`);
    client = await spawn(box);
    const target = box;
    let restarts = 0;
    const pages: SearchHit[][] = [];
    for await (const page of client.search("NEEDLE", { onRestart: () => (restarts += 1) })) {
      pages.push(page);
      if (pages.length === 1) writeSmallHistory(target, "added", "needle added");
    }
    assert.equal(restarts, 1, "the page after the change was stale: one restart");
    const keys = pages.flat().map((hit) => `${hit.id}#${hit.record_index}`);
    assert.equal(new Set(keys).size, keys.length, "no hit twice");
    assert.equal(keys.length, 151);
    assert.ok(keys.includes("added#1"));
  });

  it("a store that keeps changing (a scripted caller): stale_revision after three restarts", async () => {
    let calls = 0;
    let restarts = 0;
    const hit = (id: string) => ({
      id,
      title: null,
      updated_at: null,
      record_index: 1,
      snippet: "x",
    });
    // Every attempt: a first page, then stale_revision on its cursor.
    const caller = {
      has: () => true,
      async call(_method: string, params: { cursor?: string }) {
        calls += 1;
        if (params.cursor) throw new RemoteError("stale_revision", "changed", "session.search");
        return { hits: [hit("a"), hit(`fresh${calls}`)], cursor: "q1.1", complete: false };
      },
    } as unknown as Caller;
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const page of searchSessions(caller, "x", { onRestart: () => (restarts += 1) }))
          seen.push(...page.map((h) => h.id));
      })(),
      (error: Error & { code?: string }) => error.code === "stale_revision",
    );
    assert.equal(restarts, SEARCH_RESTARTS);
    assert.equal(calls, 2 * (SEARCH_RESTARTS + 1));
    assert.deepEqual(seen, ["a", "fresh1", "fresh3", "fresh5", "fresh7"], '"a" only once');
  });
});
