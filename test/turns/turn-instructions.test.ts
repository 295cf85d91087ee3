import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { runTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

// Nested AGENTS.md (issue 43 item 3; docs/turns.md section 5, "Project instructions").

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function systemOf(w: TurnWorld, call: number): string {
  return w.server.requests[call]?.body.messages[0].content;
}

describe("turns: project instructions from nested AGENTS.md files", () => {
  test("the global file, the git root's and the workspace's reach the model in that order", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    // The sandbox's root is the git root above the workspace (box.root/workspace).
    mkdirSync(join(box.root, ".git"));
    writeFileSync(join(box.home, "AGENTS.md"), "GLOBAL: answer in English.\n");
    writeFileSync(join(box.root, "AGENTS.md"), "ROOT: use tabs.\n");
    writeFileSync(join(box.workspace, "AGENTS.md"), "WORKSPACE: use spaces.\n");
    await child.call("session.create", {});
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    const prompt = systemOf(world, 0);
    const at = ["GLOBAL: answer", "ROOT: use tabs", "WORKSPACE: use spaces"].map((s) =>
      prompt.indexOf(s),
    );
    assert.ok(
      at.every((i) => i > 0),
      prompt,
    );
    const [global, root, own] = at as [number, number, number];
    assert.ok(global < root && root < own, "global, then the git root, then the workspace");
    assert.match(prompt, /From MC_HOME\/AGENTS\.md:/);
    assert.match(prompt, /From \.\.\/AGENTS\.md:/);
    // An empty AGENTS.override.md does not replace its folder's AGENTS.md.
    writeFileSync(join(box.root, "AGENTS.override.md"), "");
    server.reply(text("Again."));
    await runTurn(child, "Hi again");
    assert.ok(systemOf(world, 1).includes("ROOT: use tabs"), "an empty override is skipped");
  });

  test("AGENTS.override.md replaces AGENTS.md in its folder", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    writeFileSync(join(box.home, "AGENTS.md"), "GLOBAL plain\n");
    writeFileSync(join(box.home, "AGENTS.override.md"), "GLOBAL override\n");
    writeFileSync(join(box.workspace, "AGENTS.md"), "WS plain\n");
    writeFileSync(join(box.workspace, "AGENTS.override.md"), "WS override\n");
    await child.call("session.create", {});
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    const prompt = systemOf(world, 0);
    assert.ok(prompt.includes("GLOBAL override") && prompt.includes("WS override"));
    assert.ok(!prompt.includes("GLOBAL plain") && !prompt.includes("WS plain"));
  });

  // Issue 44: on a saved session they are read beside the history's pass under the lock; still
  // fresh at every turn, an edit of the same size within the same second included.
  test("each turn reads them anew: an edit between turns of a saved session, same size, is in the next prompt", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    writeFileSync(join(box.workspace, "AGENTS.md"), "RULE one\n");
    writeFileSync(join(box.home, "AGENTS.md"), "GLOBAL one\n");
    await child.call("session.create", {});
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    assert.ok(systemOf(world, 0).includes("RULE one") && systemOf(world, 0).includes("GLOBAL one"));
    writeFileSync(join(box.workspace, "AGENTS.md"), "RULE two\n");
    writeFileSync(join(box.home, "AGENTS.md"), "GLOBAL two\n");
    server.reply(text("Again."));
    await runTurn(child, "Hi again");
    const prompt = systemOf(world, 1);
    assert.ok(prompt.includes("RULE two") && prompt.includes("GLOBAL two"), prompt);
    assert.ok(!prompt.includes("RULE one") && !prompt.includes("GLOBAL one"), prompt);
  });

  test("together bounded by 32 KiB: the workspace's file keeps its budget, a shallower one is cut with a note", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    writeFileSync(join(box.home, "AGENTS.md"), `GLOBALSTART${"g".repeat(2000)}`);
    // 32 KiB - 100 bytes: the global file gets the last 100 bytes.
    writeFileSync(join(box.workspace, "AGENTS.md"), "w".repeat(32 * 1024 - 100));
    await child.call("session.create", {});
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    const prompt = systemOf(world, 0);
    assert.ok(prompt.includes("w".repeat(32 * 1024 - 100)));
    assert.ok(prompt.includes(`GLOBALSTART${"g".repeat(89)}\n[AGENTS.md cut: 1911 bytes left out`));
    assert.ok(!prompt.includes("g".repeat(90)));
    // At exactly the bound nothing is cut; one byte past it, the global file is all cut.
    writeFileSync(join(box.workspace, "AGENTS.md"), "w".repeat(32 * 1024));
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    const full = systemOf(world, 1);
    assert.ok(full.includes("w".repeat(32 * 1024)) && !full.includes("truncated at 32 KiB"));
    assert.ok(
      full.includes("[AGENTS.md cut: 2011 bytes left out") && !full.includes("GLOBALSTART"),
    );
    writeFileSync(join(box.workspace, "AGENTS.md"), "w".repeat(32 * 1024 + 1));
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    assert.ok(
      systemOf(world, 2).includes(`${"w".repeat(32 * 1024)}\n[AGENTS.md truncated at 32 KiB]`),
    );
  });

  test("a subfolder's AGENTS.md is added to the first read there, once per session", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    mkdirSync(join(box.workspace, "web", "ui"), { recursive: true });
    writeFileSync(join(box.workspace, "web", "AGENTS.md"), "WEB: use React.\n");
    writeFileSync(join(box.workspace, "web", "ui", "AGENTS.md"), "UI: no inline styles.\n");
    writeFileSync(join(box.workspace, "web", "ui", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(box.workspace, "web", "ui", "b.ts"), "export const b = 2;\n");
    await child.call("session.create", {});
    server.reply(toolCall("read_file", { path: "web/ui/a.ts" }));
    server.reply(toolCall("read_file", { path: "web/ui/b.ts" }));
    server.reply(text("Done."));
    await runTurn(child, "Read them");
    const toolMessages = (call: number) =>
      server.requests[call]?.body.messages.filter((m: { role: string }) => m.role === "tool");
    const first: string = toolMessages(1)[0].content;
    assert.match(first, /export const a = 1;/);
    const web = first.indexOf(
      "[Instructions from web/AGENTS.md, for every file under it:]\nWEB: use React.",
    );
    const ui = first.indexOf(
      "[Instructions from web/ui/AGENTS.md, for every file under it:]\nUI: no inline styles.",
    );
    assert.ok(web > 0 && ui > web, first);
    const second: string = toolMessages(2)[1].content;
    assert.match(second, /export const b = 2;/);
    assert.ok(!second.includes("[Instructions from"), "added once");
    // A later turn (its context rebuilt from the history) adds none again.
    server.reply(toolCall("read_file", { path: "web/ui/a.ts" }));
    server.reply(text("Done."));
    await runTurn(child, "Again");
    const again = toolMessages(4);
    assert.ok(!again[again.length - 1].content.includes("[Instructions from"));
  });
});
