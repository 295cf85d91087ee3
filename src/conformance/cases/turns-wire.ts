import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call, fail, garbage, text, toolCalls } from "../chat-server.js";
import { finishTurn, runTurn, startTurn } from "../turn-driver.js";
import { KIT_KEY, withTurnWorld } from "../turn-world.js";
import { auditWire } from "../wire-audit.js";

/**
 * Nothing a turn sends carries a credential, a URL or a host path (turns.md sections 3 and 6,
 * the base rule for messages): a turn that reads, lists and edits, and provider failures whose
 * bodies echo the key, the endpoint and the home folder back (as real error bodies often do).
 * Every frame of the exchange is audited: events, results, errors. The case asks for no
 * `status` and no `session.history`, whose answers carry the workspace by design.
 */
function leakyBody(origin: string, home: string) {
  const message = `Incorrect API key provided: ${KIT_KEY}. See ${origin}/v1/chat/completions (home ${home}).`;
  return {
    error: { message, type: "invalid_request_error", param: null, code: "invalid_api_key" },
  };
}

export const TURN_WIRE_CASES: ConformanceCase[] = [
  {
    id: "turns.wire.no_leaks",
    tier: "MUST",
    clause:
      "turns.md §3: Messages follow the base rule: no path, URL, credential, body, content. §6: shell runs without provider credentials; paths resolve inside the workspace.",
    title: "tool events and provider failures: no key, URL, home or workspace path in any frame",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        const origin = server.baseUrl.replace(/\/v1$/, "");
        const body = leakyBody(origin, ctx.box.home);
        writeFileSync(join(ctx.box.workspace, "kit-read.txt"), "alpha\n");
        await child.call("session.create", {});
        server.reply(
          toolCalls([
            call("read_file", { path: "kit-read.txt" }),
            call("list_dir", { path: "." }),
            call("edit_file", { path: "kit-read.txt", old_text: "alpha", new_text: "beta" }),
          ]),
          text("Done."),
        );
        const turn = startTurn(child, "Read, list and edit.", "ask");
        const asked = await turn.event("approval_requested");
        const { approval_id } = asked.event as { approval_id: string };
        await child.call("turn.approve", { approval_id, decision: "allow_once" });
        assert.equal((await finishTurn(child, turn)).result.status, "completed");
        server.reply(fail(401, { body }));
        const rejected = await runTurn(child, "Again.");
        assert.equal(rejected.result.error?.code, "authentication_rejected");
        server.reply(fail(400, { body }));
        const refused = await runTurn(child, "Once more.");
        assert.equal(refused.result.error?.code, "provider_error");
        server.reply(garbage(`data: {"broken": ${JSON.stringify(body)}\n\n`));
        const broken = await runTurn(child, "And again.");
        assert.equal(broken.result.error?.code, "invalid_response");
        const secrets = [KIT_KEY, origin, origin.replace("http://", ""), ctx.box.root, "://"];
        const problems = auditWire({ sent: child.sent, received: child.frames, secrets });
        assert.equal(problems.length, 0, `leaks: ${problems.slice(0, 3).join("\n")}`);
        for (const request of server.requests) {
          assert.ok(!request.raw.includes(KIT_KEY), "the key is never in a request body");
          assert.equal(request.headers.authorization, `Bearer ${KIT_KEY}`, "only in its header");
        }
      });
    },
  },
];
