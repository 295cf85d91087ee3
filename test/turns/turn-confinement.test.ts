/**
 * Workspace confinement through the real child: `..`, an absolute path elsewhere, a symlink
 * pointing out, and writes under `.git/` and `.mc/` are tool errors returned to the model, never
 * approvals (even under `ask`), and nothing is read from or written outside the workspace.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, type CallSpec, text } from "../fixtures/chat-completions-server.js";
import { bodiesOf, recordsOf, recordsOfCall, resultText, runApproving } from "./tool-turns.js";
import { runTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SECRET = "the outside secret";

/** One step asking for every call at once, then a closing text; no approval may be asked. */
async function refusedTurn(w: TurnWorld, permissions: string, calls: CallSpec[]) {
  const { session } = await w.child.call("session.create", {});
  w.server.reply(answer({ calls }), text("Understood."));
  const run = await runApproving(w.child, "escape", permissions, []);
  assert.equal(run.result.status, "completed");
  assert.equal(run.result.stop_reason, "end_turn");
  const next = w.server.requests[1];
  const seen = Object.fromEntries(calls.map((c) => [c.id, resultText(next, c.id as string)]));
  const records = await recordsOf(w.child, session.id);
  for (const c of calls) {
    const { result } = recordsOfCall(records, c.id as string);
    assert.equal(result.status, "failed", `${c.id} failed`);
    assert.equal(result.output, seen[c.id as string]);
  }
  assert.deepEqual(
    bodiesOf(run.events, "tool_done").map((d) => d.status),
    calls.map(() => "failed"),
  );
  return { run, seen };
}

/** What the user and the model were told, besides the calls' own inputs. */
function toldTexts(w: TurnWorld, run: { events: { event: Record<string, unknown> }[] }) {
  const results = w.server.requests
    .slice(1)
    .flatMap((r) => r.body.messages.filter((m: { role: string }) => m.role === "tool"))
    .map((m: { content: string }) => m.content);
  const dones = bodiesOf(run.events as never, "tool_done").map((d) => JSON.stringify(d));
  return [...results, ...dones];
}

describe("turns: workspace confinement", () => {
  test("paths leaving the workspace are tool errors, never approvals; nothing outside is touched", async () => {
    world = await turnWorld();
    const { root, workspace: ws } = world.box;
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
    symlinkSync(outside, join(ws, "out"));
    symlinkSync(join(outside, "secret.txt"), join(ws, "secret-link.txt"));
    const calls: CallSpec[] = [
      { name: "write_file", input: { path: "../escape.txt", content: "x" }, id: "c_dotdot" },
      { name: "write_file", input: { path: "a/../../escape2.txt", content: "x" }, id: "c_dotdot2" },
      { name: "write_file", input: { path: join(root, "abs.txt"), content: "x" }, id: "c_abs" },
      { name: "write_file", input: { path: "out/new.txt", content: "x" }, id: "c_link_new" },
      {
        name: "edit_file",
        input: { path: "secret-link.txt", old_text: "the", new_text: "a" },
        id: "c_link_edit",
      },
      { name: "read_file", input: { path: "out/secret.txt" }, id: "c_link_read" },
      { name: "read_file", input: { path: join(outside, "secret.txt") }, id: "c_abs_read" },
      { name: "list_dir", input: { path: ".." }, id: "c_list_up" },
      { name: "search", input: { pattern: "secret", path: "out" }, id: "c_search_out" },
    ];
    // Under ask: an approval would show up for any of them that got past confinement.
    const { run, seen } = await refusedTurn(world, "ask", calls);
    assert.equal(seen.c_dotdot, "../escape.txt is outside the workspace");
    assert.equal(seen.c_dotdot2, "a/../../escape2.txt is outside the workspace");
    assert.equal(seen.c_abs, "that absolute path is outside the workspace");
    assert.match(seen.c_link_new as string, /^out\/new\.txt .*outside the workspace/);
    assert.equal(seen.c_link_edit, "secret-link.txt resolves outside the workspace");
    assert.equal(seen.c_link_read, "out/secret.txt resolves outside the workspace");
    assert.equal(seen.c_abs_read, "that absolute path is outside the workspace");
    assert.match(seen.c_list_up as string, /outside the workspace/);
    assert.match(seen.c_search_out as string, /outside the workspace/);
    // Nothing written outside, the secret neither changed nor shown, no host path told.
    assert.deepEqual(readdirSync(root).sort(), ["home", "outside", "workspace"]);
    assert.deepEqual(readdirSync(outside), ["secret.txt"]);
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), `${SECRET}\n`);
    for (const told of toldTexts(world, run)) {
      assert.ok(!told.includes(SECRET), `the secret leaked: ${told}`);
      assert.ok(!told.includes(root), `a host path leaked: ${told}`);
    }
  });

  test("writes under .git/ and .mc/ are refused, even through a symlink or in another case", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    mkdirSync(join(ws, ".git"));
    writeFileSync(join(ws, ".git", "config"), "[core]\n");
    mkdirSync(join(ws, "pkg", ".git"), { recursive: true });
    symlinkSync(join(ws, ".git"), join(ws, "gitlink"));
    const { seen } = await refusedTurn(world, "full_access", [
      { name: "write_file", input: { path: ".git/config", content: "evil" }, id: "c_git" },
      {
        name: "edit_file",
        input: { path: ".git/config", old_text: "core", new_text: "evil" },
        id: "c_git_edit",
      },
      { name: "write_file", input: { path: ".git/hooks/pre-commit", content: "x" }, id: "c_hook" },
      { name: "write_file", input: { path: ".GIT/HEAD", content: "x" }, id: "c_case" },
      { name: "write_file", input: { path: "gitlink/config", content: "x" }, id: "c_gitlink" },
      { name: "write_file", input: { path: "pkg/.git/config", content: "x" }, id: "c_nested" },
      { name: "write_file", input: { path: ".mc/settings.json", content: "{}" }, id: "c_mc" },
    ]);
    assert.equal(seen.c_git, ".git/config: writes under .git/ and .mc/ are refused");
    assert.equal(seen.c_git_edit, ".git/config: writes under .git/ and .mc/ are refused");
    assert.match(seen.c_hook as string, /writes under \.git\/ and \.mc\/ are refused$/);
    assert.match(seen.c_case as string, /writes under \.git\/ and \.mc\/ are refused$/);
    assert.match(seen.c_gitlink as string, /writes under \.git\/ and \.mc\/ are refused$/);
    assert.match(seen.c_nested as string, /writes under \.git\/ and \.mc\/ are refused$/);
    assert.match(seen.c_mc as string, /writes under \.git\/ and \.mc\/ are refused$/);
    assert.equal(readFileSync(join(ws, ".git", "config"), "utf8"), "[core]\n");
    assert.deepEqual(readdirSync(join(ws, ".git")), ["config"]);
    assert.deepEqual(readdirSync(join(ws, "pkg", ".git")), []);
    assert.ok(!existsSync(join(ws, ".mc")));
    assert.ok(!existsSync(join(ws, ".GIT", "HEAD")));
  });

  test("reading under .git/ is allowed", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    mkdirSync(join(ws, ".git"));
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    world.server.reply(
      answer({ calls: [{ name: "read_file", input: { path: ".git/HEAD" }, id: "c_head" }] }),
      text("On main."),
    );
    await world.child.call("session.create", {});
    await runApproving(world.child, "which branch?", "read_only", []);
    assert.equal(resultText(world.server.requests[1], "c_head"), "     1\tref: refs/heads/main");
  });

  test("AGENTS.md is confined like the file tools: a symlink out is not sent, one inside is, a FIFO is skipped", async () => {
    world = await turnWorld();
    const { root, workspace: ws } = world.box;
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "rules.md"), `${SECRET}\n`);
    mkdirSync(join(ws, "docs"));
    writeFileSync(join(ws, "docs", "rules.md"), "Inside rules.\n");
    symlinkSync(outside, join(ws, "out"));
    await world.child.call("session.create", {});
    const promptWith = async (setUp: () => void): Promise<string> => {
      rmSync(join(ws, "AGENTS.md"), { force: true });
      setUp();
      world?.server.reply(text("Noted."));
      const { result } = await runTurn((world as TurnWorld).child, "Hi");
      assert.equal(result.status, "completed");
      return (world as TurnWorld).server.requests.at(-1)?.body.messages[0].content;
    };
    for (const target of [join(outside, "rules.md"), "out/rules.md"]) {
      const prompt = await promptWith(() => symlinkSync(target, join(ws, "AGENTS.md")));
      assert.ok(!prompt.includes(SECRET), `AGENTS.md -> ${target} is not sent`);
      assert.ok(!prompt.includes("Project instructions (AGENTS.md"));
    }
    const inside = await promptWith(() => symlinkSync("docs/rules.md", join(ws, "AGENTS.md")));
    assert.match(
      inside,
      /Project instructions \(AGENTS\.md[^\n]*:\n\nFrom AGENTS\.md:\n\nInside rules\.\n$/,
    );
    const fifo = await promptWith(() => execFileSync("mkfifo", [join(ws, "AGENTS.md")]));
    assert.ok(!fifo.includes("Project instructions (AGENTS.md"));
  });
});
