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

function writeSession(
  target: Sandbox,
  id: string,
  reply = `Fixed the TTL. ${"y".repeat(BIG)}`,
): void {
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
      text: reply,
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

/** A reply in Markdown with every way a model's text could try to run something. */
const MARKDOWN_REPLY = [
  "# Plan",
  "",
  'Some **bold**, `code` and a [safe link](https://example.com/docs "Docs").',
  "",
  "- item one",
  "- item two",
  "",
  "```ts",
  "const x = 1 < 2;",
  "```",
  "",
  '<script>document.title="pwned"</script>',
  "",
  "<img src=x onerror=alert(1)>",
  "",
  'Inline <b onclick="alert(1)">tag</b> and <a href="javascript:alert(5)">raw</a>.',
  "",
  "[js](javascript:alert(1)) [tab](java&#9;script:alert(2)) [ent](&#106;avascript:alert(4))",
  "[data](data:text/html,hi) ![pic](https://example.com/a.png)",
].join("\n");

/** Exports session `id` as HTML and returns the DOM headless Chromium built from it. */
async function exportedDom(target: Sandbox, id: string): Promise<{ dom: string; url: string }> {
  const file = join(target.root, `${id}.html`);
  const exported = await runCli(["export", id, "--format", "html", "-o", file], {
    cwd: target.workspace,
    env: { PATH: process.env.PATH, HOME: target.home, MC_HOME: target.home, NO_COLOR: "1" },
    timeoutMs: 60_000,
  });
  assert.equal(exported.code, 0, exported.stderr);
  const url = pathToFileURL(file).href;
  const dump = chromium(target, "--dump-dom", url);
  assert.equal(dump.status, 0, dump.stderr?.slice(-2000));
  return { dom: dump.stdout, url };
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
    // The DOM as Chromium built it. Headless Chromium's --dump-dom and --screenshot work through
    // scripts of its own, so scripts cannot be switched off for them (with
    // --blink-settings=scriptEnabled=false both produce nothing); the page's own policy,
    // default-src 'none', allows the page none, so what renders rendered without one.
    const { dom, url } = await exportedDom(box, "page1");
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

  test("an assistant's Markdown is rendered; its raw HTML is text and no link runs script", async () => {
    box = sandbox();
    writeSession(box, "page2", MARKDOWN_REPLY);
    const { dom, url } = await exportedDom(box, "page2");
    const reply = dom.slice(dom.indexOf('<div class="msg assistant md">'));
    assert.ok(reply.includes("<h1>Plan</h1>"), "a heading");
    assert.ok(reply.includes("<strong>bold</strong>") && reply.includes("<code>code</code>"));
    assert.match(reply, /<ul>\s*<li>item one<\/li>\s*<li>item two<\/li>\s*<\/ul>/);
    assert.ok(reply.includes('<code class="language-ts">const x = 1 &lt; 2;'), "a code block");
    assert.ok(
      reply.includes(
        '<a href="https://example.com/docs" title="Docs" rel="noopener noreferrer">safe link</a>',
      ),
      "a safe link keeps its address",
    );
    // Nothing runs: no script or image element, no event handler, no link but the safe one.
    assert.ok(!/<script/i.test(dom), "no script element");
    assert.ok(!/<img/i.test(dom), "no image element");
    assert.ok(!/<[^>]*\son[a-z]+\s*=/i.test(dom), "no event handler attribute");
    // Every link the page holds leads to http(s) or, relative, to a file: never a script.
    const hrefs = [...dom.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) =>
      (m[1] ?? "").replace(/&amp;/g, "&"),
    );
    assert.ok(hrefs.includes("https://example.com/docs"));
    for (const href of hrefs)
      assert.ok(["https:", "http:", "file:"].includes(new URL(href, url).protocol), href);
    assert.ok(
      reply.includes('&lt;script&gt;document.title="pwned"&lt;/script&gt;'),
      "a script block shows as its text",
    );
    assert.ok(reply.includes("&lt;img src=x onerror=alert(1)&gt;"));
    assert.ok(reply.includes('&lt;b onclick="alert(1)"&gt;tag&lt;/b&gt;'));
    assert.ok(reply.includes("<p>js "), "a javascript: link shows as its text alone");
    assert.ok(reply.includes("data pic"), "so does a data: link, and an image as its alt text");
    assert.ok(dom.includes("<title>&lt;script&gt;"), "the title is the user's text, unchanged");

    const shot = join(box.root, "page2.png");
    const screenshot = chromium(box, `--screenshot=${shot}`, "--window-size=1000,1400", url);
    assert.equal(screenshot.status, 0, screenshot.stderr?.slice(-2000));
    if (process.env.MC_KEEP_SCREENSHOT_MD)
      writeFileSync(process.env.MC_KEEP_SCREENSHOT_MD, readFileSync(shot));
  });
});
