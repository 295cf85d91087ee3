import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { afterEach, describe, test } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * `mc-agent sessions search <text>` (issue 42) through the real CLI and a real child: rows as
 * hits arrive, --json lines, a history's control characters kept off the terminal, another
 * workspace's sessions never shown, the usage bounds, and Ctrl-C cancelling with exit 130.
 */
const TS = "2026-11-29T10:00:00.000Z";

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

function env(target: Sandbox): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: target.home,
    MC_HOME: target.home,
    MC_AGENT_CACHE_DIR: `${target.root}/cache`,
    NO_COLOR: "1",
  };
}

function writeStore(target: Sandbox): void {
  const store = new StoreBuilder(target.home, target.workspace, 7);
  const at = (s: number) => `2026-11-29T10:00:0${s}.000Z`;
  const cwd = target.workspace;
  store.history("s1", [
    { type: "session_meta", ts: TS, cwd, id: "s1" },
    { type: "user_message", ts: at(1), cwd, text: "Why is the Flaky test\nflaky?\u001b[31m red" },
    { type: "title", ts: at(2), cwd, title: "flaky test hunt" },
    { type: "assistant_message", ts: at(3), cwd, text: "It is not FLAKY.", model: "demo/demo-1" },
  ]);
  store.history("s2", [
    { type: "session_meta", ts: TS, cwd, id: "s2" },
    { type: "user_message", ts: at(1), cwd, text: "nothing to see" },
  ]);
  store.chat("foreign", { cwd: "/other/workspace", firstMessage: "flaky elsewhere" });
}

describe("mc-agent sessions search", () => {
  test("rows give the session, title, record and snippet; --json gives the hits; foreign sessions never", async () => {
    box = sandbox();
    writeStore(box);
    const opts = { cwd: box.workspace, env: env(box), timeoutMs: 60_000 };
    const run = await runCli(["sessions", "search", "flaky"], opts);
    assert.equal(run.code, 0, run.stderr);
    const rows = run.stdout.trimEnd().split("\n");
    assert.deepEqual(rows, [
      "s1  flaky test hunt  #1  Why is the Flaky test flaky?\\u{1b}[31m red",
      "s1  flaky test hunt  #2  flaky test hunt",
      "s1  flaky test hunt  #3  It is not FLAKY.",
    ]);
    assert.ok(
      !run.stdout.includes("\u001b"),
      "a history's escape sequences never reach the terminal",
    );
    assert.match(run.stderr, /3 hits\./);

    const json = await runCli(["sessions", "search", "--json", "FLAKY", "test"], opts);
    assert.equal(json.code, 0, json.stderr);
    const hits = json.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      hits.map((h) => [h.id, h.title, h.record_index, h.snippet, h.updated_at]),
      [
        ["s1", "flaky test hunt", 1, "Why is the Flaky test\nflaky?\u001b[31m red", at3()],
        ["s1", "flaky test hunt", 2, "flaky test hunt", at3()],
      ],
    );
    assert.equal(json.stderr, "");
  });

  test("no hit is exit 0 with a note; an empty or over-long text is a usage error (256 is fine)", async () => {
    box = sandbox();
    writeStore(box);
    const opts = { cwd: box.workspace, env: env(box), timeoutMs: 60_000 };
    const none = await runCli(["sessions", "search", "quokka"], opts);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, "");
    assert.match(none.stderr, /No session of this folder mentions it/);
    const longest = await runCli(["sessions", "search", "q".repeat(256)], opts);
    assert.equal(longest.code, 0, longest.stderr);
    for (const args of [[], [" "], ["q".repeat(257)]]) {
      const bad = await runCli(["sessions", "search", ...args], opts);
      assert.equal(bad.code, 2, `${JSON.stringify(args)}: ${bad.stderr}`);
      assert.match(bad.stderr, /usage_error/);
    }
  });

  test("Ctrl-C cancels the search in flight: exit 130, what was printed stays", async () => {
    box = sandbox();
    const store = new StoreBuilder(box.home, box.workspace, 11);
    // Histories that match interleaved (by the folder's order) with big ones that do not, so
    // the search is still reading when the first hit has been printed.
    for (let i = 0; i < 200; i += 1) {
      store.chat(`hit${i}`, { firstMessage: "the needle is here" });
      store.sized(`big${i}`, 256 * 1024);
    }
    const proc = spawn(process.execPath, [CHILD_BIN, "sessions", "search", "needle"], {
      cwd: box.workspace,
      env: { ...env(box), MC_AGENT_VERDICTS: "off" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (t: string) => {
      stderr += t;
    });
    const firstHit = new Promise<void>((resolve) =>
      proc.stdout.setEncoding("utf8").on("data", (t: string) => {
        stdout += t;
        if (stdout.includes("needle")) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => proc.on("close", resolve));
    await firstHit;
    proc.kill("SIGINT");
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /Search cancelled \(operation_cancelled\) after \d+ hits?\./);
    const printed = stdout.trimEnd().split("\n");
    assert.ok(printed.length >= 1 && printed.length < 200, `${printed.length} rows printed`);
    for (const row of printed)
      assert.match(row, /^hit\d+ {2}the needle is here {2}#1 {2}the needle is here$/);
  });
});

function at3(): string {
  return "2026-11-29T10:00:03.000Z";
}
