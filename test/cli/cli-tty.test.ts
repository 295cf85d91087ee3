import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { scriptedEnv } from "../helpers/cli.js";
import { CLI_FIXTURE } from "../helpers/cli-fixture.js";
import { requestLog, scriptedDir } from "../helpers/fakes.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";

const ESC = "\x1b";
const CLEAR_LINE = `\r${ESC}[2K`;
/** Any bold, dim or color SGR sequence. */
const hasColor = (text: string) => [1, 2, 31, 32, 33].some((n) => text.includes(`${ESC}[${n}m`));
const has = (text: string, part: string) =>
  assert.ok(text.includes(part), `missing ${JSON.stringify(part)} in ${JSON.stringify(text)}`);

/** The CLI on a real terminal (a pty from util-linux `script`), against the scripted child. */
describe("CLI on a real TTY", {
  skip: hasScript() ? false : "util-linux script is not installed",
}, () => {
  let box: Sandbox;
  let dir: string;
  let runs: PtyRun[] = [];
  beforeEach(() => {
    box = sandbox();
    dir = scriptedDir(box.root, CLI_FIXTURE);
  });
  afterEach(() => {
    for (const run of runs) run.kill();
    runs = [];
    box.cleanup();
  });
  const start = (args: string, env: Record<string, string> = {}) => {
    const line = `exec ${shellQuote(process.execPath)} ${shellQuote(CHILD_BIN)} ${args}`;
    const run = new PtyRun(line, { cwd: box.workspace, env: scriptedEnv(dir, env) });
    runs.push(run);
    return run;
  };

  it("sessions shows a live progress line while discovery runs, then the table in color", async () => {
    const run = start("sessions", { FAKE_STEP_MS: "120" });
    assert.equal(await run.done, 0);
    has(run.output, `${CLEAR_LINE}Discovering sessions… 2 provisional rows, 1 step (page_entries)`);
    has(
      run.output,
      `${CLEAR_LINE}Discovering sessions… 2 provisional rows, 2 steps (history_work)`,
    );
    assert.match(run.output, /inventory_validation/);
    // The progress line is cleared before the table, whose header is bold.
    has(run.output, `${CLEAR_LINE}${ESC}[1mID${ESC}[0m`);
    has(run.output, `legacy-notes ${ESC}[33m?${ESC}[0m`);
  });

  it("NO_COLOR keeps the progress line but drops every color", async () => {
    const run = start("sessions", { NO_COLOR: "1", FAKE_STEP_MS: "50" });
    assert.equal(await run.done, 0);
    assert.match(run.output, /Discovering sessions…/);
    assert.ok(!hasColor(run.output), "no color under NO_COLOR");
    assert.match(run.output, /ID {2,}TITLE/);
  });

  it("refresh: spinner, Ctrl-C cancels through operation.cancel and waits for the terminal response", async () => {
    const run = start("refresh slow");
    await run.waitFor("Refreshing slow… (Ctrl-C cancels)");
    run.type("\x03");
    const code = await run.done;
    // A cancelled refresh was interrupted by the user: 130, as exec's Ctrl-C.
    assert.equal(code, 130, JSON.stringify(run.output));
    assert.match(run.output, /Cancelling… waiting for the backend to confirm/);
    assert.match(
      run.output,
      /Refresh of slow cancelled \(operation_cancelled\); nothing claims it completed\./,
    );
    const sent = requestLog(dir);
    assert.equal(sent.filter((m) => m === "operation.cancel").length, 1, sent.join(","));
    // Cancel after the refresh, then the status reload, then a clean shutdown: the child was
    // not killed by the terminal's SIGINT (it runs in its own process group).
    assert.deepEqual(
      sent.slice(sent.indexOf("model.refresh")),
      ["model.refresh", "operation.cancel", "model.catalog.status", "shutdown"],
      JSON.stringify(run.output),
    );
  });
});
