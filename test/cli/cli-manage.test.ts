import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * The CLI's session menu (issue 42): `mc-agent sessions rename|archive|unarchive|archived|
 * delete|usage` with their confirmations, the COST column, and `mc-agent export` in its three
 * formats, over a real child and a hand-written store.
 */
const TS = "2026-11-29T10:00:00.000Z";
const BIG = 1_048_576;

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

function env(target: Sandbox) {
  return { PATH: process.env.PATH, HOME: target.home, MC_HOME: target.home, NO_COLOR: "1" };
}

/** A session with a shell call, an edit (a diff), a reply of 1 MiB and a costed turn. */
function writeRichSession(target: Sandbox, id: string): string[] {
  const cwd = target.workspace;
  const base = { ts: TS, cwd, turn_id: "t-1" };
  const usage = {
    input_tokens: 1000,
    output_tokens: 200,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
  };
  const records = [
    { type: "session_meta", ts: TS, cwd, id },
    { type: "turn_start", ...base, model: "demo/demo-1", effort: null, permissions: "ask" },
    { type: "user_message", ...base, text: "Fix <the> cache & test" },
    {
      type: "tool_call",
      ...base,
      item_id: "t-1.1",
      call_id: "c1",
      tool: "shell",
      input: { command: "npm test" },
    },
    {
      type: "tool_result",
      ...base,
      item_id: "t-1.1",
      call_id: "c1",
      status: "completed",
      output: "1 failing",
      exit_code: 1,
    },
    {
      type: "tool_call",
      ...base,
      item_id: "t-1.2",
      call_id: "c2",
      tool: "edit_file",
      input: { path: "src/cache.ts", old_text: "const ttl = 0;", new_text: "const ttl = 60;" },
    },
    {
      type: "tool_result",
      ...base,
      item_id: "t-1.2",
      call_id: "c2",
      status: "completed",
      output: "Edited src/cache.ts",
    },
    { type: "assistant_message", ...base, text: `Done.${"y".repeat(BIG)}`, model: "demo/demo-1" },
    {
      type: "turn_end",
      ...base,
      status: "completed",
      stop_reason: "end_turn",
      usage,
      cost_usd: 0.0042,
    },
  ];
  const lines = records.map((r) => JSON.stringify(r));
  mkdirSync(join(target.home, "sessions"), { recursive: true, mode: 0o700 });
  writeFileSync(join(target.home, "sessions", `${id}.jsonl`), `${lines.join("\n")}\n`);
  return lines;
}

describe("mc-agent export", () => {
  test("json is the raw records; md and html fold tool calls, show the edit's diff and keep a 1 MiB reply", async () => {
    box = sandbox();
    const lines = writeRichSession(box, "rich1");
    const opts = { cwd: box.workspace, env: env(box), timeoutMs: 60_000 };
    const json = await runCli(["export", "rich1", "--format", "json"], opts);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      json.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
      lines.map((l) => JSON.parse(l)),
    );
    const md = await runCli(["export", "rich", "--format", "md"], opts);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^# Fix <the> cache & test/);
    assert.match(md.stdout, /<details>\n<summary>shell: npm test<\/summary>/);
    assert.match(
      md.stdout,
      /```diff\n--- a\/src\/cache.ts\n\+\+\+ b\/src\/cache.ts\n-const ttl = 0;\n\+const ttl = 60;\n```/,
    );
    assert.ok(md.stdout.includes(`Done.${"y".repeat(BIG)}`), "the 1 MiB reply is whole");
    const file = join(box.root, "out.html");
    const html = await runCli(["export", "rich1", "--format", "html", "-o", file], opts);
    assert.equal(html.code, 0, html.stderr);
    assert.equal(html.stdout, "");
    const page = readFileSync(file, "utf8");
    assert.match(page, /^<!doctype html>/);
    assert.ok(!/<script|<link|src=/i.test(page), "self-contained: no script, no external resource");
    assert.ok(page.includes("Fix &#60;the&#62; cache &#38; test"), "text is escaped");
    assert.equal((page.match(/<details>/g) ?? []).length, 2, "both tool calls are folded");
    assert.equal((page.match(/<\/details>/g) ?? []).length, 2);
    assert.ok(
      page.includes(
        '<span class="del">-const ttl = 0;</span><span class="add">+const ttl = 60;</span>',
      ),
    );
    assert.ok(page.includes("y".repeat(BIG)), "the 1 MiB reply is whole");
    assert.ok(page.includes("Turn completed, $0.0042"));
  });

  test("a bad format is a usage error", async () => {
    box = sandbox();
    writeRichSession(box, "rich1");
    const run = await runCli(["export", "rich1", "--format", "pdf"], {
      cwd: box.workspace,
      env: env(box),
    });
    assert.equal(run.code, 2);
  });
});

describe("mc-agent sessions: the session menu", () => {
  test("rename, usage and the COST column; archive, archived, unarchive; delete asks, --yes deletes", async () => {
    box = sandbox();
    writeRichSession(box, "rich1");
    const opts = { cwd: box.workspace, env: env(box), timeoutMs: 60_000 };
    const renamed = await runCli(["sessions", "rename", "rich", "Cache", "ttl", "fix"], opts);
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.equal(renamed.stdout, "rich1: Cache ttl fix\n");
    const listed = await runCli(["sessions"], opts);
    assert.match(listed.stdout, /COST/);
    assert.match(listed.stdout, /rich1\s+Cache ttl fix\s+.*\$0\.0042/);
    const usage = await runCli(["sessions", "usage", "rich1"], opts);
    assert.match(usage.stdout, /1 turn\(s\)/);
    assert.match(usage.stdout, /cost: \$0\.0042\n/);
    const unasked = await runCli(["sessions", "archive", "rich1"], opts);
    assert.equal(unasked.code, 1, "without a terminal, --yes is needed");
    assert.ok(existsSync(join(box.home, "sessions", "rich1.jsonl")));
    assert.equal((await runCli(["sessions", "archive", "rich1", "--yes"], opts)).code, 0);
    assert.match((await runCli(["sessions", "archived"], opts)).stdout, /rich1 .*Cache ttl fix/);
    assert.match((await runCli(["sessions"], opts)).stdout, /No saved sessions/);
    assert.equal((await runCli(["sessions", "unarchive", "rich1"], opts)).code, 0);
    const refused = await runCli(["sessions", "delete", "rich1"], opts);
    assert.equal(refused.code, 1);
    assert.ok(
      existsSync(join(box.home, "sessions", "rich1.jsonl")),
      "nothing deleted without --yes",
    );
    const deleted = await runCli(["sessions", "delete", "rich1", "--yes"], opts);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.ok(!existsSync(join(box.home, "sessions", "rich1.jsonl")));
  });
});
