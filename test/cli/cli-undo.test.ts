import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { call, text, toolCall, toolCalls } from "../fixtures/chat-completions-server.js";
import { runCli } from "../helpers/cli.js";
import { hasScript, type PtyRun } from "../helpers/pty.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const PROMPT = "› ";

async function waitForCount(p: PtyRun, part: string, count: number, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (p.output.split(part).length - 1 < count) {
    if (Date.now() > until)
      throw new Error(`not ${count}× "${part}"; got: ${JSON.stringify(p.output.slice(-900))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const KEEP = "keep me\nline two\n";

/** /undo, /fork and `mc-agent undo` against the real child, a loopback model and real files. */
describe("undo in the CLI (real child, loopback model)", () => {
  const world = cliTurnWorld("mc-cli-undo-");

  /** One turn that writes new.txt and runs `rm keep.txt` (full_access: no approvals). */
  const destructiveTurn = () =>
    world.server.reply(
      toolCalls([
        call("write_file", { path: "new.txt", content: "fresh\n" }, "c1"),
        call("shell", { command: "rm keep.txt" }, "c2"),
      ]),
      text("Wrote new.txt and removed keep.txt."),
    );

  it("/undo shows the diff, y restores both files, and the next turn no longer sees it", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    const ws = world.box.workspace;
    writeFileSync(join(ws, "keep.txt"), KEEP);
    world.server.reply(text("Hello there."));
    destructiveTurn();
    world.server.reply(text("After the undo."));
    const p = world.pty("chat", "--permissions", "full_access");
    await waitForCount(p, PROMPT, 1);
    p.type("Say hello\r");
    await p.waitFor("Hello there.", 60_000);
    await waitForCount(p, PROMPT, 2);
    p.type("Make a mess\r");
    await p.waitFor("Wrote new.txt and removed keep.txt.", 60_000);
    await waitForCount(p, PROMPT, 3);
    assert.ok(!existsSync(join(ws, "keep.txt")));
    p.type("/undo\r");
    await p.waitFor('Undo turn 2 ("Make a mess")? [y/N]', 60_000);
    assert.match(p.output, /removed {3}new\.txt/);
    assert.match(p.output, /recreated keep\.txt/);
    assert.match(p.output, /\+keep me/);
    assert.match(p.output, /-fresh/);
    p.type("y");
    await p.waitFor("Undone: 1 turn, 2 files restored", 60_000);
    assert.equal(readFileSync(join(ws, "keep.txt"), "utf8"), KEEP);
    assert.ok(!existsSync(join(ws, "new.txt")), "the created file is gone");
    await waitForCount(p, PROMPT, 4);
    p.type("What now?\r");
    await p.waitFor("After the undo.", 60_000);
    await waitForCount(p, PROMPT, 5);
    p.type("/exit\r");
    assert.equal(await p.done, 0, p.output);
    const last = world.server.requests.at(-1)?.body.messages.slice(1);
    assert.deepEqual(last, [
      { role: "user", content: "Say hello" },
      { role: "assistant", content: "Hello there." },
      { role: "user", content: "What now?" },
    ]);
  });

  it("/rewind lists the turns and undoes the picked one and every later one", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    const ws = world.box.workspace;
    world.server.reply(toolCall("write_file", { path: "one.txt", content: "1\n" }), text("One."));
    world.server.reply(toolCall("write_file", { path: "two.txt", content: "2\n" }), text("Two."));
    world.server.reply(text("Fresh start."));
    const p = world.pty("chat", "--permissions", "full_access");
    await waitForCount(p, PROMPT, 1);
    p.type("Write one\r");
    await p.waitFor("One.", 60_000);
    await waitForCount(p, PROMPT, 2);
    p.type("Write two\r");
    await p.waitFor("Two.", 60_000);
    await waitForCount(p, PROMPT, 3);
    p.type("/rewind\r");
    await p.waitFor("Rewind to before which turn?", 60_000);
    assert.match(p.output, / 1 {2}Write one\r?\n {3}2 {2}Write two/);
    p.type("1\r");
    await p.waitFor('Undo turn 1 ("Write one") and the 1 after it? [y/N]', 60_000);
    p.type("y");
    await p.waitFor("Undone: 2 turns, 2 files restored", 60_000);
    assert.ok(!existsSync(join(ws, "one.txt")) && !existsSync(join(ws, "two.txt")));
    await waitForCount(p, PROMPT, 4);
    p.type("/undo\r");
    await p.waitFor("Nothing to undo", 60_000);
    await waitForCount(p, PROMPT, 5);
    p.type("Again\r");
    await p.waitFor("Fresh start.", 60_000);
    await waitForCount(p, PROMPT, 6);
    p.type("/exit\r");
    assert.equal(await p.done, 0, p.output);
    assert.deepEqual(world.server.requests.at(-1)?.body.messages.slice(1), [
      { role: "user", content: "Again" },
    ]);
  });

  it("/fork switches the chat to a new session that holds the history", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    world.server.reply(text("One."), text("Two."));
    const p = world.pty("chat", "--permissions", "full_access");
    await waitForCount(p, PROMPT, 1);
    p.type("First\r");
    await p.waitFor("One.", 60_000);
    await waitForCount(p, PROMPT, 2);
    p.type("/fork\r");
    await p.waitFor("Forked: now in session", 60_000);
    const forked = /Forked: now in session (\S+) \(1 turn\(s\) of (\S+),/.exec(p.output);
    assert.ok(forked && forked[1] !== forked[2], p.output);
    await waitForCount(p, PROMPT, 3);
    p.type("Second\r");
    await p.waitFor("Two.", 60_000);
    await waitForCount(p, PROMPT, 4);
    p.type("/exit\r");
    assert.equal(await p.done, 0, p.output);
    assert.match(p.output, new RegExp(`mc-agent resume ${forked?.[1]}`));
    assert.deepEqual(world.server.requests[1]?.body.messages.slice(1), [
      { role: "user", content: "First" },
      { role: "assistant", content: "One." },
      { role: "user", content: "Second" },
    ]);
  });

  it("/undo: a file changed between the dry run and y is named and needs a second y (no silent force)", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    const ws = world.box.workspace;
    writeFileSync(join(ws, "keep.txt"), KEEP);
    destructiveTurn();
    const p = world.pty("chat", "--permissions", "full_access");
    await waitForCount(p, PROMPT, 1);
    p.type("Make a mess\r");
    await p.waitFor("Wrote new.txt and removed keep.txt.", 60_000);
    await waitForCount(p, PROMPT, 2);
    p.type("/undo\r");
    await p.waitFor('Undo turn 1 ("Make a mess")? [y/N]', 60_000);
    assert.doesNotMatch(p.output, /changed outside/, "the dry run saw no outside change");
    // The race: the workspace changes while the question is on the screen.
    writeFileSync(join(ws, "late.txt"), "written after the preview\n");
    const asked = p.output.length;
    p.type("y");
    await p.waitFor("Overwrite those files as well? [y/N]", 60_000);
    const warning = p.output.slice(asked);
    assert.match(
      warning,
      /These files changed since the session's last turn ended[^\n]*\r?\n {2}late\.txt/,
    );
    assert.doesNotMatch(warning, /Undone:/);
    assert.ok(!existsSync(join(ws, "keep.txt")), "the refused revert changed nothing");
    assert.equal(readFileSync(join(ws, "new.txt"), "utf8"), "fresh\n");
    p.type("n");
    await p.waitFor("Nothing was undone.", 60_000);
    await waitForCount(p, PROMPT, 3);
    assert.ok(existsSync(join(ws, "late.txt")) && !existsSync(join(ws, "keep.txt")));
    // Asked again, the dry run itself shows the outside change; the second y forces.
    p.type("/undo\r");
    await waitForCount(p, "Overwrite those files as well? [y/N]", 2);
    assert.match(p.output.slice(asked), /removed {3}late\.txt {2}\(changed outside\)/);
    p.type("y");
    await p.waitFor("Undone: 1 turn, 3 files restored", 60_000);
    assert.equal(readFileSync(join(ws, "keep.txt"), "utf8"), KEEP);
    assert.ok(!existsSync(join(ws, "new.txt")) && !existsSync(join(ws, "late.txt")));
    await waitForCount(p, PROMPT, 4);
    p.type("/exit\r");
    assert.equal(await p.done, 0, p.output);
  });

  it("/fork after an /undo counts the live turns and names the undone ones apart", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    world.server.reply(text("One."));
    world.server.reply(toolCall("write_file", { path: "two.txt", content: "2\n" }), text("Two."));
    world.server.reply(text("Three."), text("Four."));
    const p = world.pty("chat", "--permissions", "full_access");
    await waitForCount(p, PROMPT, 1);
    p.type("First\r");
    await p.waitFor("One.", 60_000);
    await waitForCount(p, PROMPT, 2);
    p.type("Second\r");
    await p.waitFor("Two.", 60_000);
    await waitForCount(p, PROMPT, 3);
    p.type("/undo\r");
    await p.waitFor('Undo turn 2 ("Second")? [y/N]', 60_000);
    p.type("y");
    await p.waitFor("Undone: 1 turn", 60_000);
    await waitForCount(p, PROMPT, 4);
    p.type("Third\r");
    await p.waitFor("Three.", 60_000);
    await waitForCount(p, PROMPT, 5);
    p.type("/fork\r");
    await p.waitFor("which the model does not see.", 60_000);
    assert.match(
      p.output,
      /Forked: now in session \S+ \(2 turn\(s\) of \S+, which stays[^\n]*\. Its history also keeps 1 undone turn\(s\), which the model does not see\./,
    );
    await waitForCount(p, PROMPT, 6);
    // Turn 1 of the fork's live list is "First": a cut there carries no undone turn.
    p.type("/fork 1\r");
    await waitForCount(p, "Forked: now in session", 2);
    await waitForCount(p, PROMPT, 7);
    const second = p.output.slice(p.output.lastIndexOf("Forked: now in session"));
    assert.match(second, /^Forked: now in session \S+ \(1 turn\(s\) of /);
    assert.doesNotMatch(second.split("\n")[0] ?? "", /undone/);
    p.type("Fourth\r");
    await p.waitFor("Four.", 60_000);
    await waitForCount(p, PROMPT, 8);
    p.type("/exit\r");
    assert.equal(await p.done, 0, p.output);
    assert.deepEqual(world.server.requests.at(-1)?.body.messages.slice(1), [
      { role: "user", content: "First" },
      { role: "assistant", content: "One." },
      { role: "user", content: "Fourth" },
    ]);
  });

  it("mc-agent undo --dry-run prints and changes nothing; --yes restores; then nothing is left", async () => {
    const ws = world.box.workspace;
    const opts = { cwd: ws, env: world.env, timeoutMs: 60_000 };
    writeFileSync(join(ws, "keep.txt"), KEEP);
    destructiveTurn();
    const exec = await runCli(["exec", "--permissions", "full_access", "Make a mess"], opts);
    assert.equal(exec.code, 0, exec.stderr);
    const dry = await runCli(["undo", "--dry-run"], opts);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Undoing 1 turn would change 2 file\(s\)/);
    assert.match(dry.stdout, /\+keep me/);
    assert.ok(!existsSync(join(ws, "keep.txt")), "a dry run changes nothing");
    const asked = await runCli(["undo"], opts);
    assert.equal(asked.code, 1, "no terminal and no --yes: declined");
    assert.match(asked.stderr, /pass --yes to undo/);
    assert.ok(!existsSync(join(ws, "keep.txt")));
    const undo = await runCli(["undo", "--yes"], opts);
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(ws, "keep.txt"), "utf8"), KEEP);
    assert.ok(!existsSync(join(ws, "new.txt")));
    const again = await runCli(["undo", "--yes"], opts);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Nothing to undo/);
  });

  it("mc-agent undo: an outside edit needs --force", async () => {
    const ws = world.box.workspace;
    const opts = { cwd: ws, env: world.env, timeoutMs: 60_000 };
    world.server.reply(
      toolCall("write_file", { path: "a.txt", content: "by the turn\n" }),
      text("Done."),
    );
    const exec = await runCli(["exec", "--permissions", "full_access", "Write a.txt"], opts);
    assert.equal(exec.code, 0, exec.stderr);
    writeFileSync(join(ws, "b.txt"), "mine\n");
    const refused = await runCli(["undo", "--yes"], opts);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /changed since the session's last turn ended[\s\S]*b\.txt/);
    assert.ok(existsSync(join(ws, "a.txt")));
    const forced = await runCli(["undo", "--yes", "--force"], opts);
    assert.equal(forced.code, 0, forced.stderr);
    assert.ok(!existsSync(join(ws, "a.txt")) && !existsSync(join(ws, "b.txt")));
  });
});
