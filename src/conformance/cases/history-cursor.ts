import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { SESSION_CAPABILITIES, writeHistoryOfSize, writeSmallHistory } from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * A refusal consumes nothing: a `session.history` cursor sent with another session's ID is
 * refused with `invalid_params` and stays usable for its own session, as refused discovery
 * steps leave their cursor usable.
 */
export const HISTORY_CURSOR_CASES: ConformanceCase[] = [
  {
    id: "sessions.history.refused_cursor_kept",
    tier: "MUST",
    clause:
      "base §6: session.history cursors continue their own session; a cursor with another session's ID is invalid_params. A refused request consumes nothing.",
    title: "a history cursor refused for another session still continues its own",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeHistoryOfSize(ctx.box, "long", 96 * 1024);
      writeSmallHistory(ctx.box, "other");
      const first = await child.request("session.history", { id: "long" });
      const cursor = first.result?.cursor as string | null | undefined;
      assert.ok(cursor, `a 96 KiB history has a second page: ${JSON.stringify(first)}`);
      const refused = await child.request("session.history", { id: "other", cursor });
      assert.equal(refused.error?.code, "invalid_params", JSON.stringify(refused));
      const again = await child.request("session.history", { id: "other", cursor });
      assert.equal(again.error?.code, "invalid_params", "still refused, still not used up");
      const own = await child.request("session.history", { id: "long", cursor });
      assert.ok(own.result, `the refused cursor continues its session: ${JSON.stringify(own)}`);
      assert.ok((own.result.events as unknown[]).length > 0, "the next page has events");
      const used = await child.request("session.history", { id: "long", cursor });
      assert.equal(used.error?.code, "stale_revision", "once used, the cursor is spent");
    },
  },
];
