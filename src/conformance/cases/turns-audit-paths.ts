import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import { call, text, toolCalls } from "../chat-server.js";
import { bodiesOf, finishTurn, startTurn } from "../turn-driver.js";
import { type TurnWorld, withTurnWorld } from "../turn-world.js";

/**
 * A path swapped while its approval waits (issue 17, defect 2; turns.md section 6: file tools
 * resolve paths inside the canonical workspace only, and no write goes under `.git/`, with no
 * exception for the time an approval waits). The approval names a path inside; while it waits,
 * a folder on the path becomes a symlink out of the workspace or into `.git/`; the user allows
 * once. Nothing may be written there: the call ends as a failed tool result the model is told
 * about, and the turn goes on.
 */
const CALL_ID = "call_kit_race_1";
const CLAUSE =
  "turns.md §6: File tools resolve paths inside the canonical workspace only (symlinks resolved); anything outside, and any write under .git/ or .mc/, is a tool error returned to the model; Tool errors never fail the turn.";

/** Runs one write call under ask, `swap`ping while its approval waits, then allowing once. */
async function raceTurn(
  { child, server }: TurnWorld,
  tool: string,
  input: Record<string, unknown>,
  swap: () => void,
): Promise<void> {
  await child.call("session.create", {});
  const before = server.requests.length;
  server.reply(toolCalls([call(tool, input, CALL_ID)]), text("Noted."));
  const turn = startTurn(child, "Write it.", "ask");
  const asked = await turn.event("approval_requested");
  swap();
  const applied = await child.call("turn.approve", {
    approval_id: (asked.event as { approval_id: string }).approval_id,
    decision: "allow_once",
  });
  assert.equal(applied.state, "applied");
  const { result, events } = await finishTurn(child, turn);
  assert.equal(result.status, "completed", "a refused write does not fail the turn");
  assert.deepEqual(
    bodiesOf(events, "tool_done").map((d) => d.status),
    ["failed"],
    "the allowed write whose path was swapped ends failed",
  );
  const told = server.requests[before + 1]?.body?.messages?.find(
    (m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === CALL_ID,
  );
  assert.ok(told, "the model is told the call's result, and the turn goes on");
}

/** One world, one race turn. */
function raceCase(
  ctx: CaseContext,
  tool: string,
  input: Record<string, unknown>,
  swap: () => void,
): Promise<void> {
  return withTurnWorld(ctx, (world) => raceTurn(world, tool, input, swap));
}

/** `ws/name` (a folder) replaced by a symlink to `target`. */
function swapForLink(ws: string, name: string, target: string): void {
  rmSync(join(ws, name), { recursive: true, force: true });
  symlinkSync(target, join(ws, name));
}

function outsideFolder(ctx: CaseContext): string {
  const outside = join(ctx.box.root, "outside");
  mkdirSync(outside, { recursive: true });
  return outside;
}

const names = (folder: string) => (readdirSync(folder, { recursive: true }) as string[]).sort();

export const TURN_AUDIT_PATH_CASES: ConformanceCase[] = [
  {
    id: "turns.audit.paths.new_file_folder_swapped_out",
    tier: "MUST",
    clause: CLAUSE,
    title:
      "create sub/new.txt; sub becomes a symlink out while the approval waits: nothing outside",
    async run(ctx) {
      const ws = ctx.box.workspace;
      const outside = outsideFolder(ctx);
      mkdirSync(join(ws, "sub"));
      await raceCase(ctx, "write_file", { path: "sub/new.txt", content: "escaped\n" }, () =>
        swapForLink(ws, "sub", outside),
      );
      assert.deepEqual(names(outside), [], "nothing (not even a temp file) is written outside");
    },
  },
  {
    id: "turns.audit.paths.folder_swapped_to_git",
    tier: "MUST",
    clause: CLAUSE,
    title: "create sub/hooks/pre-commit; sub becomes a symlink to .git while waiting: no hook",
    async run(ctx) {
      const ws = ctx.box.workspace;
      mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
      writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
      mkdirSync(join(ws, "sub", "hooks"), { recursive: true });
      await raceCase(
        ctx,
        "write_file",
        { path: "sub/hooks/pre-commit", content: "#!/bin/sh\necho pwned\n" },
        () => swapForLink(ws, "sub", join(ws, ".git")),
      );
      assert.deepEqual(names(join(ws, ".git")), ["HEAD", "hooks"], ".git is untouched");
    },
  },
  {
    id: "turns.audit.paths.missing_parent_becomes_link",
    tier: "MUST",
    clause: CLAUSE,
    title:
      "create a/b/new.txt with a missing; a appears as a symlink out while waiting: nothing outside",
    async run(ctx) {
      const ws = ctx.box.workspace;
      const outside = outsideFolder(ctx);
      mkdirSync(join(outside, "b"));
      await raceCase(ctx, "write_file", { path: "a/b/new.txt", content: "escaped\n" }, () =>
        symlinkSync(outside, join(ws, "a")),
      );
      assert.deepEqual(names(outside), ["b"], "nothing is written outside");
    },
  },
  {
    id: "turns.audit.paths.replaced_file_folder_swapped_out",
    tier: "MUST",
    clause: CLAUSE,
    title: "replace and edit sub/f.txt; sub becomes a symlink to an identical copy outside: kept",
    async run(ctx) {
      const ws = ctx.box.workspace;
      const outside = outsideFolder(ctx);
      // The copy outside has the same content, so only confinement can tell the two apart.
      await withTurnWorld(ctx, async (world) => {
        for (const [tool, input] of [
          ["write_file", { path: "sub/f.txt", content: "escaped\n" }],
          ["edit_file", { path: "sub/f.txt", old_text: "same", new_text: "lost" }],
        ] as const) {
          rmSync(join(ws, "sub"), { recursive: true, force: true });
          mkdirSync(join(ws, "sub"));
          writeFileSync(join(ws, "sub", "f.txt"), "same\n");
          writeFileSync(join(outside, "f.txt"), "same\n");
          await raceTurn(world, tool, input, () => swapForLink(ws, "sub", outside));
          assert.equal(readFileSync(join(outside, "f.txt"), "utf8"), "same\n", `${tool}: kept`);
          assert.deepEqual(names(outside), ["f.txt"], `${tool}: nothing else written outside`);
        }
      });
    },
  },
];
