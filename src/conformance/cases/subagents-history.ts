import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { call, custom, text, toolCalls } from "../chat-server.js";
import { assertError } from "../expect.js";
import type { TestChild } from "../harness.js";
import { bodiesOf, historyOf, runTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * `session.subagent_history` (capability `subagents`, docs/turns.md "Subagents"): a subagent's
 * derived history read back through the protocol, paged as `session.history` pages (cursors,
 * page bounds, stale and foreign cursors), and its refusals.
 */
const SUB_CAPABILITIES = [...TURN_CAPABILITIES, "subagents"];
const PAGE_BYTES = 32_768;

// biome-ignore lint/suspicious/noExplicitAny: wire bodies, read freely.
type Loose = any;

interface Page {
  events: Record<string, unknown>[];
  cursor: string | null;
  complete: boolean;
}

/** A turn whose model hands `prompts` to subagents (one reply); each answers `answer(prompt)`. */
async function delegated(
  child: TestChild,
  server: Parameters<Parameters<typeof withTurnWorld>[1]>[0]["server"],
  prompts: string[],
  answer: (prompt: string) => string,
): Promise<{ sessionId: string; subagentIds: string[] }> {
  const { session } = await child.call("session.create", {});
  const echo = custom(async (exchange) => {
    const users = (exchange.request.body.messages as Loose[]).filter((m) => m.role === "user");
    await text(answer(String(users.at(-1)?.content)))(exchange);
  });
  server.reply(
    toolCalls(
      prompts.map((prompt, i) => call("agent", { description: `Part ${i}`, prompt }, `c_${i}`)),
    ),
    ...prompts.map(() => echo),
    text("Both done."),
  );
  const { result, events } = await runTurn(child, "Delegate the parts", "read_only");
  assert.equal(result.status, "completed");
  const calls = bodiesOf(events, "tool_call").filter((c) => c.tool === "agent");
  const ids = calls.map((c) => c.item_id);
  const wrapped = new Set(bodiesOf(events, "subagent_event").map((e) => e.subagent_id));
  assert.deepEqual([...wrapped].sort(), [...ids].sort(), "each agent call is one subagent");
  return { sessionId: session.id, subagentIds: ids };
}

async function page(
  child: TestChild,
  id: string,
  subagentId: string,
  cursor?: string,
): Promise<Page> {
  const params = { id, subagent_id: subagentId, ...(cursor ? { cursor } : {}) };
  return child.call("session.subagent_history", params, 30_000);
}

export const SUBAGENT_HISTORY_CASES: ConformanceCase[] = [
  {
    id: "subagents.history.pages",
    tier: "MUST",
    clause:
      "docs/turns.md, Subagents: session.subagent_history {id, subagent_id, cursor?} pages a subagent's history as session.history pages a session's: its session_meta, turn_start, its prompt, its answer and turn_end, each page within page_bytes; a cursor of another subagent is invalid_params and stays usable; a used one is stale_revision.",
    title: "a subagent's history, page by page; foreign and used cursors refused",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          // Each record about 20 KB: two never share a page of 32 KiB.
          const prompts = ["a".repeat(20_000), "b".repeat(20_000)];
          const answer = (prompt: string) => `${prompt.slice(0, 1)}-answer `.repeat(2_000);
          const { sessionId, subagentIds } = await delegated(child, server, prompts, answer);
          const [first = "", second = ""] = subagentIds;
          const pages: Page[] = [];
          let cursor: string | undefined;
          do {
            const got = await page(child, sessionId, first, cursor);
            assert.ok(
              Buffer.byteLength(JSON.stringify(got)) <= PAGE_BYTES,
              "a page stays within page_bytes",
            );
            pages.push(got);
            cursor = got.complete ? undefined : (got.cursor ?? undefined);
            if (pages.length === 1) {
              assert.ok(cursor, "the first page is not the last");
              // Another subagent's first page: the cursor belongs to the first one.
              const foreign = await child.request("session.subagent_history", {
                id: sessionId,
                subagent_id: second,
                cursor,
              });
              assertError(foreign, "invalid_params", "a cursor of another subagent");
            }
          } while (cursor);
          assert.ok(pages.length >= 2, "more than one page");
          const records = pages.flatMap((p) => p.events);
          assert.deepEqual(
            records.map((r) => r.type),
            ["session_meta", "turn_start", "user_message", "assistant_message", "turn_end"],
          );
          assert.equal(records[2]?.text, prompts[0], "its prompt, whole");
          assert.equal(records[3]?.text, answer(prompts[0] as string), "its answer, whole");
          assert.equal(records[4]?.status, "completed");
          assert.equal(records[1]?.permissions, "read_only");
          // The parent's history holds the agent call whose item ID names the subagent.
          const parent = await historyOf(child, sessionId);
          const agentCalls = parent.filter((r) => r.type === "tool_call" && r.tool === "agent");
          assert.deepEqual(
            agentCalls.map((r) => r.item_id),
            subagentIds,
          );
          // The second subagent reads whole too, from its own first page.
          const other: Page[] = [];
          let next: string | undefined;
          do {
            const got = await page(child, sessionId, second, next);
            other.push(got);
            next = got.complete ? undefined : (got.cursor ?? undefined);
          } while (next);
          const texts = other.flatMap((p) => p.events).map((r) => r.text);
          assert.ok(texts.includes(prompts[1]), "the second subagent's prompt");
          // A cursor already used is stale.
          const firstPage = await page(child, sessionId, first);
          const used = firstPage.cursor as string;
          await page(child, sessionId, first, used);
          const again = await child.request("session.subagent_history", {
            id: sessionId,
            subagent_id: first,
            cursor: used,
          });
          assertError(again, "stale_revision", "a used cursor");
        },
        { capabilities: SUB_CAPABILITIES },
      );
    },
  },
  {
    id: "subagents.history.refusals",
    tier: "MUST",
    clause:
      "docs/turns.md, Subagents: session.subagent_history answers session_missing for an unknown session or a subagent the session does not have, invalid_params for a malformed subagent_id, and unsupported_capability without `subagents`; a derived history is never a session (session.open and session.history refuse its name).",
    title: "session.subagent_history refusals; without subagents it is not callable",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server, respawn }) => {
          const { sessionId, subagentIds } = await delegated(child, server, ["look"], (p) => p);
          const [sub = ""] = subagentIds;
          const ask = (params: Record<string, unknown>) =>
            child.request("session.subagent_history", params);
          assertError(
            await ask({ id: sessionId, subagent_id: "t-none.1" }),
            "session_missing",
            "a subagent the session does not have",
          );
          assertError(
            await ask({ id: "no-such-session", subagent_id: sub }),
            "session_missing",
            "an unknown session",
          );
          for (const bad of ["../x", "a/b", "", "x".repeat(65)])
            assertError(
              await ask({ id: sessionId, subagent_id: bad }),
              "invalid_params",
              `subagent_id ${JSON.stringify(bad)}`,
            );
          for (const method of ["session.open", "session.history"])
            assertError(
              await child.request(method, { id: `${sessionId}.${sub}` }),
              "invalid_params",
              `${method} of a derived history's name`,
            );
          await child.close();
          const plain = await respawn(TURN_CAPABILITIES);
          assertError(
            await plain.request("session.subagent_history", { id: sessionId, subagent_id: sub }),
            "unsupported_capability",
            "without subagents negotiated",
          );
        },
        { capabilities: SUB_CAPABILITIES },
      );
    },
  },
];
