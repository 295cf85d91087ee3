import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * `mc-agent export --format html` opened in a real browser (headless Chromium): the page
 * renders with no script (its policy allows none), a message holding `<script>` shows as text and makes no
 * element, tool calls are folded `<details>`, the diff's lines are painted, and a 1 MiB reply is
 * all there. The screenshot is written beside the page (looked at by hand: docs/cli.md, "Export").
 * Skipped when no `chromium` is installed.
 */
const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find(
  (name) => spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0,
);
const TS = "2026-11-29T10:00:00.000Z";
const BIG = 1_048_576;
const EVIL = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>';

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

function writeSession(target: Sandbox, id: string): void {
  const cwd = target.workspace;
  const base = { ts: TS, cwd, turn_id: "t-1" };
  const records = [
    { type: "session_meta", ts: TS, cwd, id },
    { type: "turn_start", ...base, model: "demo/demo-1", effort: null, permissions: "ask" },
    { type: "user_message", ...base, text: EVIL },
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
    {
      type: "assistant_message",
      ...base,
      text: `Fixed the TTL. ${"y".repeat(BIG)}`,
      model: "demo/demo-1",
    },
    {
      type: "turn_end",
      ...base,
      status: "completed",
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0 },
      cost_usd: 0.0042,
    },
  ];
  mkdirSync(join(target.home, "sessions"), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(target.home, "sessions", `${id}.jsonl`),
    `${records.map((r) => JSON.stringify(r)).join("\n")}\n`,
  );
}

function chromium(target: Sandbox, ...args: string[]) {
  return spawnSync(
    CHROMIUM as string,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--user-data-dir=${join(target.root, "chromium-profile")}`,
      ...args,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 180_000 },
  );
}

describe("mc-agent export --format html in headless Chromium", {
  skip: CHROMIUM ? false : "chromium is not installed",
}, () => {
  test("renders without scripts; <script> in a message is text; tool calls folded; 1 MiB reply whole", async () => {
    box = sandbox();
    writeSession(box, "page1");
    const file = join(box.root, "page1.html");
    const exported = await runCli(["export", "page1", "--format", "html", "-o", file], {
      cwd: box.workspace,
      env: { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, NO_COLOR: "1" },
      timeoutMs: 60_000,
    });
    assert.equal(exported.code, 0, exported.stderr);
    const url = pathToFileURL(file).href;

    // The DOM as Chromium built it. Headless Chromium's --dump-dom and --screenshot work through
    // scripts of its own, so scripts cannot be switched off for them (with
    // --blink-settings=scriptEnabled=false both produce nothing); the page's own policy,
    // default-src 'none', allows the page none, so what renders rendered without one.
    const dump = chromium(box, "--dump-dom", url);
    assert.equal(dump.status, 0, dump.stderr?.slice(-2000));
    const dom = dump.stdout;
    assert.ok(dom.includes("default-src 'none'"), "the page allows no script, no resource");
    assert.ok(!/<script/i.test(dom), "no script element in the rendered document");
    assert.ok(!/<img/i.test(dom), "the message's markup made no element");
    assert.ok(
      dom.includes(
        '&lt;script&gt;document.title="pwned"&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;',
      ),
      "the message shows as its text",
    );
    assert.equal((dom.match(/<details>/g) ?? []).length, 2, "both tool calls are folded");
    assert.ok(dom.includes('<span class="add">+const ttl = 60;</span>'), "the diff is painted");
    assert.ok(dom.includes(`Fixed the TTL. ${"y".repeat(BIG)}`), "the 1 MiB reply is whole");
    assert.ok(
      dom.includes('<title>&lt;script&gt;document.title="pwned"'),
      "the title is the message's text, unchanged by it",
    );

    const shot = join(box.root, "page1.png");
    const screenshot = chromium(box, `--screenshot=${shot}`, "--window-size=1000,1400", url);
    assert.equal(screenshot.status, 0, screenshot.stderr?.slice(-2000));
    const png = readFileSync(shot);
    assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
    assert.ok(statSync(shot).size > 10_000, "the screenshot holds a rendered page, not a blank");
    if (process.env.MC_KEEP_SCREENSHOT) writeFileSync(process.env.MC_KEEP_SCREENSHOT, png);
  });
});
