import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import { isWellFormed, strictJsonProblem } from "../../protocol/well-formed.js";
import type { ConformanceCase } from "../case.js";
import { answer, call, text } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { bodiesOf, finishTurn, historyOf, startTurn } from "../turn-driver.js";
import { withTurnWorld } from "../turn-world.js";

/**
 * Frames a strict decoder accepts, and events within their bound (issue 17, defects 4 and 5):
 * a title or a search line cut at its length keeps whole characters (a cut by UTF-16 units
 * leaves half an emoji, a lone surrogate that serde_json and Swift refuse), and an
 * `approval_requested` for a command of control characters (six bytes each in JSON) is cut to
 * fit `event_bytes` as a whole frame, marked `truncated`. Every turn the driver finishes is also
 * checked frame by frame (turn-driver.ts's assertTurnFrames).
 */
const EMOJI = "\u{1F389}";

/** Every frame the child wrote so far is JSON a strict UTF-8 decoder accepts. */
function assertStrictFrames(child: TestChild): void {
  for (const frame of child.frames) {
    const problem = strictJsonProblem(child.lineOf(frame));
    assert.equal(problem, null, `a frame a strict UTF-8 JSON decoder refuses (${problem})`);
  }
}

/** Starts a turn, denies each approval it asks for, and finishes it. */
async function denyingTurn(child: TestChild, input: string) {
  const turn = startTurn(child, input, "ask");
  const asked = await turn.event("approval_requested");
  const { approval_id } = asked.event as { approval_id: string };
  await child.call("turn.approve", { approval_id, decision: "deny" });
  return { asked, ...(await finishTurn(child, turn)) };
}

export const TURN_AUDIT_FRAMES_CASES: ConformanceCase[] = [
  {
    id: "turns.frames.title_cut_whole_characters",
    tier: "MUST",
    clause:
      "base-protocol.md §1: one UTF-8 JSON object per line. tools.md: a shell title is the command's first line cut at 80 characters with `…`; a cut never leaves half a character.",
    title:
      "a shell title cut with an emoji at UTF-16 units 79-80: tool_call and approval titles well-formed",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        const { session } = await child.call("session.create", {});
        const command = `echo ${"a".repeat(74)}${EMOJI} and more after it`;
        server.reply(answer({ calls: [call("shell", { command })] }));
        server.reply(text("Understood."));
        const { asked, events, result } = await denyingTurn(child, "Run the echo.");
        assert.equal(result.status, "completed");
        const [announced] = bodiesOf(events, "tool_call");
        for (const title of [announced?.title, (asked.event as { title: string }).title]) {
          assert.equal(typeof title, "string");
          assert.ok(isWellFormed(title as string), "a title with a lone surrogate");
          assert.ok(!(title as string).includes("\uFFFD"), "the emoji was not replaced");
        }
        await historyOf(child, session.id);
        assertStrictFrames(child);
      });
    },
  },
  {
    id: "turns.frames.search_line_cut_whole_characters",
    tier: "MUST",
    clause:
      "tools.md: a matching line over 500 characters is shown cut with `…`; the saved tool_result and every frame stay well-formed UTF-8 JSON.",
    title:
      "a search line cut with an emoji at UTF-16 units 499-500: result and history well-formed",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        const { session } = await child.call("session.create", {});
        const line = `needle${"x".repeat(493)}${EMOJI}${"y".repeat(40)}`;
        writeFileSync(join(ctx.box.workspace, "long.txt"), `${line}\n`);
        server.reply(answer({ calls: [call("search", { pattern: "needle" }, "c_search")] }));
        server.reply(text("Found it."));
        const turn = startTurn(child, "Search for needle.", "read_only");
        const { result } = await finishTurn(child, turn);
        assert.equal(result.status, "completed");
        const seen = server.requests[1]?.body.messages.find(
          (m: { tool_call_id?: string }) => m.tool_call_id === "c_search",
        );
        assert.ok(isWellFormed(String(seen?.content)), "the model was sent a lone surrogate");
        assert.ok(String(seen?.content).includes(EMOJI), "the emoji is kept whole");
        const records = await historyOf(child, session.id);
        const saved = records.find((r) => r.type === "tool_result");
        assert.ok(isWellFormed(String(saved?.output)), "the saved tool_result is well-formed");
        assertStrictFrames(child);
      });
    },
  },
  {
    id: "turns.frames.approval_within_event_bytes",
    tier: "MUST",
    clause:
      "turns.md §2: every frame stays within frame_bytes; docs/turns.md: an event is within event_bytes as a whole (its IDs, title, path and JSON escaping counted), commands longer than one event are cut with `truncated: true`.",
    title:
      "a command of 11,000 control characters under ask: approval_requested <= event_bytes, truncated",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        const command = `printf '${"\u0001".repeat(11_000)}'`;
        server.reply(answer({ calls: [call("shell", { command })] }));
        server.reply(text("Understood."));
        const { asked } = await denyingTurn(child, "Print the control characters.");
        const body = asked.event as { truncated: boolean; command: string | null };
        assert.equal(body.truncated, true);
        assert.ok(typeof body.command === "string" && body.command.length < command.length);
        const frame = child.frames.find(
          (f) => (f as unknown as { params?: unknown }).params === asked,
        );
        assert.ok(frame, "the approval's frame");
        const bytes = Buffer.byteLength(child.lineOf(frame));
        const bound = TURN_EXTENSION.event_bytes;
        assert.ok(bytes <= bound, `approval_requested of ${bytes} bytes, over ${bound}`);
        assertStrictFrames(child);
      });
    },
  },
];
