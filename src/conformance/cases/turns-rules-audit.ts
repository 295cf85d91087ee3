import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call } from "../chat-server.js";
import { CaseSkipped } from "../skip.js";
import { bodiesOf } from "../turn-driver.js";
import { commandsTurn, withRulesWorld } from "./turns-rules.js";

/**
 * Approval rules against the outside audit (issue 35): `"sandbox": false` always asks but for an
 * allow_session given to an escalation; a prefix rule covers no option that writes or executes
 * and an offered rule is never broader than the command; a deny rule reads through respellings
 * and an unreadable command asks even under full_access; an approval's title and command show
 * bidirectional overrides as `\u{202e}` (docs/tools.md, "Approval rules"; docs/turns.md
 * section 4).
 */

const shell = (command: string, id: string, extra: Record<string, unknown> = {}) =>
  call("shell", { command, ...extra }, id);
type Asked = { title: string; command: string; rule: { match: string; text: string } | null };

export const TURN_RULES_AUDIT_CASES: ConformanceCase[] = [
  {
    id: "turns.rules.escalation_always_asks",
    tier: "MUST",
    clause:
      'tools.md, Escalation: `"sandbox": false` always asks; no allow_always rule and no rule kept at another level spares it; an allow_session given to an escalation spares the next one in this attachment.',
    title: "after allow_always on `touch` under ask, `touch` with sandbox:false still asks",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        const init = world.child.frames[0]?.result as {
          extensions?: { turn?: { sandbox?: unknown } };
        };
        if (!init?.extensions?.turn?.sandbox)
          throw new CaseSkipped(
            "the child advertises no OS sandbox (extensions.turn.sandbox is null)",
          );
        await world.child.call("session.create", {});
        await commandsTurn(world, [shell("touch a.txt", "k1")], ["allow_always"]);
        const out = (name: string, id: string) => shell(`touch ${name}`, id, { sandbox: false });
        await commandsTurn(world, [out("b.txt", "k2")], ["deny"], "sandboxed");
        assert.ok(!existsSync(join(ctx.box.workspace, "b.txt")), "the escalation did not run");
        await commandsTurn(
          world,
          [out("c.txt", "k3"), out("d.txt", "k4")],
          ["allow_session"],
          "sandboxed",
        );
        assert.ok(
          existsSync(join(ctx.box.workspace, "d.txt")),
          "the granted escalation ran unasked",
        );
      });
    },
  },
  {
    id: "turns.rules.options_not_covered",
    tier: "MUST",
    clause:
      "tools.md, Options a rule covers: a prefix rule does not cover an option that writes or executes (git diff --output); a rule offered for a command whose options its prefix would not cover is that exact command (git -C . status keeps no rule `git`).",
    title:
      "`git -C . status` offers an exact rule; after allow_session on `git diff --stat`, `git diff --output=f` asks",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        await world.child.call("session.create", {});
        const { asked } = await commandsTurn(
          world,
          [
            shell("git -C . status", "k1"),
            shell("git diff --stat", "k2"),
            shell("git diff --output=kit-out.txt", "k3"),
          ],
          ["deny", "allow_session", "deny"],
        );
        const [first, second, third] = asked as unknown as Asked[];
        assert.deepEqual([first?.rule?.match, first?.rule?.text], ["exact", "git -C . status"]);
        assert.deepEqual([second?.rule?.match, second?.rule?.text], ["prefix", "git diff"]);
        assert.equal(third?.command, "git diff --output=kit-out.txt");
        assert.ok(!existsSync(join(ctx.box.workspace, "kit-out.txt")));
      });
    },
  },
  {
    id: "turns.rules.deny_respellings",
    tier: "MUST",
    clause:
      "tools.md, What a deny rule sees: a deny rule refuses, unasked at every level, the command however spelled (a path, a redirection, a compound command, an env assignment, a wrapper, bash -c, $(...)); a command whose program cannot be told asks even under full_access.",
    title: "deny on `touch`: six respellings refused unasked under full_access; `$T x` asks",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        await world.child.call("session.create", {});
        await commandsTurn(world, [shell("touch no0.txt", "k0")], ["deny_always"]);
        const respellings = [
          "/usr/bin/touch no1.txt",
          "true; touch no2.txt",
          "FOO=1 touch no3.txt 2>/dev/null",
          "env touch no4.txt",
          "bash -c 'touch no5.txt'",
          "echo $(touch no6.txt)",
        ];
        const { events } = await commandsTurn(
          world,
          [...respellings.map((c, i) => shell(c, `r${i}`)), shell("T=touch; $T no7.txt", "u")],
          ["deny"],
          "full_access",
        );
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          [...respellings.map(() => "denied"), "denied"],
        );
        for (let i = 0; i <= 7; i += 1)
          assert.ok(!existsSync(join(ctx.box.workspace, `no${i}.txt`)), `no${i}.txt`);
      });
    },
  },
  {
    id: "turns.approval.hidden_characters",
    tier: "MUST",
    clause:
      "turns.md section 4: approval_requested's title and command show each invisible or reordering character (U+202E, U+2066..2069, U+200E/F, ...) as the text \\u{hex}; the command run is unchanged.",
    title: "a command with U+202E: the approval shows \\u{202e}, never the raw override",
    async run(ctx) {
      await withRulesWorld(ctx, async (world) => {
        await world.child.call("session.create", {});
        const command = "touch 'kit\u202ehs.txt'";
        const { asked } = await commandsTurn(world, [shell(command, "k1")], ["allow_once"]);
        const shown = asked[0] as unknown as Asked;
        assert.equal(shown.command, "touch 'kit\\u{202e}hs.txt'");
        assert.equal(shown.title.includes("\u202e"), false);
        assert.ok(shown.title.includes("\\u{202e}"));
        assert.ok(
          existsSync(join(ctx.box.workspace, "kit\u202ehs.txt")),
          "the command ran as given",
        );
      });
    },
  },
];
