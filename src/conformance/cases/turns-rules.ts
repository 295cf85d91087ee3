import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import { type CallSpec, type ChatServer, call, text, toolCalls } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { CaseSkipped } from "../skip.js";
import { bodiesOf, finishTurn, startTurn, type TurnEvent } from "../turn-driver.js";
import { TURN_CAPABILITIES, turnChildOptions, writeTurnHome } from "../turn-world.js";

/**
 * Approval rules (docs/tools.md, "Approval rules"; docs/turns.md, turn.approve and
 * approval.rules): a prefix rule kept by allow_session, a compound command that still asks, a
 * workspace rule kept by allow_always for later children, deny_always refusing unasked, removal,
 * and a damaged rules file ignored. A backend whose `extensions.turn.decisions` lacks the
 * `_always` decisions is skipped, with the reason.
 */

interface RulesWorld {
  server: ChatServer;
  child: TestChild;
  respawn(): Promise<TestChild>;
}

export async function withRulesWorld(ctx: CaseContext, body: (world: RulesWorld) => Promise<void>) {
  const { startChatServer } = await import("../chat-server.js");
  const server = await startChatServer();
  try {
    writeTurnHome(ctx.box, server.baseUrl);
    const respawn = async () => {
      const child = ctx.spawn(turnChildOptions());
      const init = await child.initialize(TURN_CAPABILITIES);
      if (!init.result) {
        await child.close();
        throw new CaseSkipped("the child does not offer turn");
      }
      const turn = (init.result as { extensions?: { turn?: { decisions?: string[] } } }).extensions
        ?.turn;
      const decisions = turn?.decisions ?? [];
      if (!decisions.includes("allow_always") || !decisions.includes("deny_always")) {
        await child.close();
        throw new CaseSkipped("extensions.turn.decisions has no allow_always/deny_always");
      }
      return child;
    };
    const world = { server, child: await respawn(), respawn };
    try {
      await body(world);
    } finally {
      await world.child.close();
    }
  } finally {
    await server.close();
  }
}

const touch = (file: string, id: string): CallSpec =>
  call("shell", { command: `touch ${file}` }, id);

/** A turn of one model step per command, answering its approvals with `decisions` in order. */
export async function commandsTurn(
  world: RulesWorld,
  commands: CallSpec[],
  decisions: string[],
  permissions = "ask",
): Promise<{ asked: TurnEvent["event"][]; events: TurnEvent[] }> {
  for (const spec of commands) world.server.reply(toolCalls([spec]));
  world.server.reply(text("Done."));
  const { child } = world;
  const turn = startTurn(child, "Run the commands.", permissions);
  const asked: TurnEvent["event"][] = [];
  for (const decision of decisions) {
    const event = await turn.event(
      "approval_requested",
      (e) =>
        !asked.some(
          (a) =>
            (a as { approval_id: string }).approval_id ===
            (e.event as { approval_id: string }).approval_id,
        ),
    );
    asked.push(event.event);
    await child.call("turn.approve", {
      approval_id: (event.event as { approval_id: string }).approval_id,
      decision: decision as "allow_once",
    });
  }
  const { result, events } = await finishTurn(child, turn);
  assert.equal(result.status, "completed");
  assert.equal(
    bodiesOf(events, "approval_requested").length,
    decisions.length,
    "the turn asked exactly as often as the rules say",
  );
  return { asked, events };
}

const ws = (ctx: CaseContext, name: string) => join(ctx.box.workspace, name);

export const TURN_RULES_CASES: ConformanceCase[] = [
  {
    id: "turns.rules.session_prefix",
    tier: "MUST",
    clause:
      "tools.md, Approval rules: allow_session keeps a prefix rule of a simple command (shown in approval_requested.rule); a compound command matches no rule and always asks.",
    title: "allow_session on `touch a` allows `touch b` unasked; `touch c && touch d` still asks",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        await world.child.call("session.create", {});
        const { asked } = await commandsTurn(
          world,
          [
            touch("a.txt", "k1"),
            touch("b.txt", "k2"),
            call("shell", { command: "touch c.txt && touch d.txt" }, "k3"),
          ],
          ["allow_session", "deny"],
        );
        const rule = (asked[0] as { rule: { text: string; match: string } | null }).rule;
        assert.equal(rule?.text, "touch");
        assert.equal(rule?.match, "prefix");
        assert.equal(
          (asked[1] as { rule: unknown }).rule,
          null,
          "a compound command offers no rule",
        );
        assert.ok(existsSync(ws(ctx, "b.txt")), "the prefix rule covered touch b.txt");
        assert.ok(!existsSync(ws(ctx, "c.txt")) && !existsSync(ws(ctx, "d.txt")));
      });
    },
  },
  {
    id: "turns.rules.always_and_remove",
    tier: "MUST",
    clause:
      "tools.md, Approval rules: allow_always keeps the rule in MC_HOME/rules for later children, never in the workspace; approval.rules lists and removes it.",
    title: "allow_always survives a new child; approval.rules remove makes it ask again",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        await world.child.call("session.create", {});
        await commandsTurn(world, [touch("a.txt", "k1")], ["allow_always"]);
        await world.child.close();
        world.child = await world.respawn();
        await world.child.call("session.create", {});
        await commandsTurn(world, [touch("b.txt", "k2")], []);
        assert.ok(existsSync(ws(ctx, "b.txt")));
        const listed = await world.child.call("approval.rules", { action: "list" });
        const kept = listed.rules.filter((r) => r.scope === "workspace");
        assert.deepEqual(
          kept.map((r) => [r.effect, r.text]),
          [["allow", "touch"]],
        );
        await world.child.call("approval.rules", {
          action: "remove",
          rule_id: kept[0]?.id as string,
        });
        await commandsTurn(world, [touch("c.txt", "k3")], ["deny"]);
        assert.ok(!existsSync(ws(ctx, "c.txt")));
        assert.ok(!existsSync(join(ctx.box.workspace, ".mc")), "nothing written in the workspace");
      });
    },
  },
  {
    id: "turns.rules.deny_always",
    tier: "MUST",
    clause:
      "tools.md, Approval rules: deny_always keeps a rule that refuses without asking: no approval_requested, tool_done denied, a tool error to the model.",
    title: "after deny_always, the same kind of command is refused unasked, even under full_access",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        await world.child.call("session.create", {});
        await commandsTurn(world, [touch("no1.txt", "k1")], ["deny_always"]);
        const { events } = await commandsTurn(world, [touch("no2.txt", "k2")], [], "full_access");
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          ["denied"],
        );
        assert.ok(!existsSync(ws(ctx, "no1.txt")) && !existsSync(ws(ctx, "no2.txt")));
        const shown = JSON.stringify(world.server.requests.at(-1)?.body ?? {});
        assert.match(shown, /denied by an approval rule/);
      });
    },
  },
  {
    id: "turns.rules.bad_file",
    tier: "MUST",
    clause:
      "store.md, Approval rules: a damaged rules file is ignored (no rule of it applies) and reported by approval.rules as invalid; it never fails a turn.",
    title:
      "a damaged rules file: approval.rules says invalid, the command asks, the turn completes",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        const folder = join(ctx.box.home, "rules");
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        const key = createHash("sha256").update(ctx.box.workspace).digest("hex").slice(0, 32);
        writeFileSync(join(folder, `${key}.json`), '{"version":1,"rules":[', { mode: 0o600 });
        const listed = await world.child.call("approval.rules", { action: "list" });
        assert.equal(listed.file, "invalid");
        assert.deepEqual(listed.rules, []);
        await world.child.call("session.create", {});
        await commandsTurn(world, [touch("a.txt", "k1")], ["allow_once"]);
        const cleared = await world.child.call("approval.rules", { action: "clear" });
        assert.equal(cleared.file, "ok");
      });
    },
  },
];
