import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { CHILD_BIN } from "../helpers/child.js";
import { shellQuote } from "../helpers/pty.js";
import { hasTmux, TmuxRun } from "../helpers/tmux.js";
import { cliTurnWorld } from "./cli-turn-world.js";

/**
 * Chat's `/search <text>` in a real terminal (tmux): the hits numbered as they arrive, then
 * "Open which?": a number switches the chat to that session (its recap shows, and the next
 * message is a turn of that session, appended to its history); Enter stays.
 */
describe("mc-agent chat: /search (tmux)", {
  skip: hasTmux() ? false : "tmux is not installed",
}, () => {
  const world = cliTurnWorld("mc-cli-search-");

  const chat = () => {
    const line = [process.execPath, CHILD_BIN, "chat"].map(shellQuote).join(" ");
    const run = new TmuxRun(line, {
      cwd: world.box.workspace,
      env: { ...world.env, NO_COLOR: "1" },
      width: 120,
    });
    world.closeAfter(() => run.kill());
    return run;
  };

  const writeSessions = () => {
    const cwd = world.box.workspace;
    const store = new StoreBuilder(world.box.home, cwd, 5);
    const ts = (s: number) => `2026-11-29T10:00:0${s}.000Z`;
    store.history("older1", [
      { type: "session_meta", ts: ts(0), cwd, id: "older1" },
      { type: "user_message", ts: ts(1), cwd, text: "the quokka migration plan" },
      { type: "title", ts: ts(2), cwd, title: "Quokka plan" },
      { type: "assistant_message", ts: ts(3), cwd, text: "Step one: count.", model: "demo/demo-1" },
    ]);
    store.history("other2", [
      { type: "session_meta", ts: ts(0), cwd, id: "other2" },
      { type: "user_message", ts: ts(1), cwd, text: "unrelated" },
    ]);
  };

  it("lists the hits, opens the one picked, and the next message continues that session", async () => {
    writeSessions();
    world.server.reply(text("Counting quokkas now."));
    const run = chat();
    await run.waitFor("› ");
    run.type("/search QUOKKA");
    run.press("Enter");
    await run.waitFor("Open which? (number; Enter stays here):");
    const all = run.all();
    assert.match(all, / {2}1 {2}older1 {2}Quokka plan {2}#1 {2}the quokka migration plan/);
    assert.match(all, / {2}2 {2}older1 {2}Quokka plan {2}#2 {2}Quokka plan/);
    assert.ok(!all.includes("other2"), "a session without the text is not listed");
    run.type("7");
    run.press("Enter");
    await run.waitFor("Pick a number from 1 to 2");
    run.type("1");
    run.press("Enter");
    await run.waitFor("Now in session older1 (Quokka plan); the match is its record #1.");
    await run.waitFor("── where this session stood ──");
    await run.waitFor("Step one: count.");
    run.type("how many are there?");
    run.press("Enter");
    await run.waitFor("Counting quokkas now.");
    const history = readFileSync(join(world.box.home, "sessions", "older1.jsonl"), "utf8");
    assert.match(history, /"type":"user_message"[^\n]*"text":"how many are there\?"/);
    const sent = world.server.requests[0]?.body.messages as { content: unknown }[];
    assert.ok(
      JSON.stringify(sent).includes("the quokka migration plan"),
      "the model sees the opened session's conversation",
    );
    // The turn's summary line, then a fresh prompt: /exit typed earlier would wait for it.
    await run.waitFor("✓ 1 step");
    await run.waitFor((all) => all.trimEnd().endsWith("›"));
    run.type("/exit");
    run.press("Enter");
    assert.equal(await run.ended(), 0);
  });

  it("no hit says so; Enter at the question stays in the chat's own session", async () => {
    writeSessions();
    const run = chat();
    await run.waitFor("› ");
    run.type("/search wombat");
    run.press("Enter");
    await run.waitFor("No session of this folder mentions it.");
    run.type("/search quokka");
    run.press("Enter");
    await run.waitFor("Open which? (number; Enter stays here):");
    run.press("Enter");
    run.type("/status");
    run.press("Enter");
    // /status's line follows the greeting's: the chat is still in its own new session.
    await run.waitFor((all) => (all.match(/^session \S+ \(new: not saved/gm) ?? []).length === 1);
    assert.ok(!run.all().includes("Now in session"), "nothing was opened");
    run.type("/exit");
    run.press("Enter");
    assert.equal(await run.ended(), 0);
  });
});
