import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { Capability } from "../../src/client/index.js";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { golden, runCli } from "../helpers/cli.js";
import { until } from "../helpers/fakes.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";
import {
  loopbackProvider,
  realChildOffers,
  writeHistory,
  writeProviderSettings,
} from "../helpers/real-home.js";

/**
 * The CLI with its default backend: the real child (`mc-agent stdio`) on a real store and real
 * loopback providers. Each test skips, saying why, while this build's child lacks the domain.
 */
describe("CLI against the real child", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(() => {
    box = sandbox();
    env = {
      PATH: process.env.PATH,
      HOME: box.home,
      MC_HOME: box.home,
      TEST_PROVIDER_KEY: "k",
      TZ: "UTC",
    };
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    box.cleanup();
  });
  const run = (...args: string[]) => runCli(args, { cwd: box.workspace, env });
  const skipUnless = async (t: { skip: (why: string) => void }, caps: Capability[]) => {
    const ok = await realChildOffers(box.workspace, box.home, caps);
    if (!ok) t.skip(`this build's child does not offer ${caps.join(", ")} yet`);
    return ok;
  };
  const provider = async (options: Parameters<typeof loopbackProvider>[0]) => {
    const p = await loopbackProvider(options);
    closers.push(p.close);
    return p;
  };

  it("sessions --json: this folder's validated sessions, nothing else", async (t) => {
    if (!(await skipUnless(t, ["session.discover"]))) return;
    writeHistory(box.home, "alpha", box.workspace, "Alpha work");
    writeHistory(box.home, "beta", box.workspace, "Beta work");
    writeHistory(box.home, "legacy", null, "Legacy notes");
    writeHistory(box.home, "foreign", "/elsewhere/project", "Not ours");
    writeFileSync(join(box.home, "sessions", "broken.jsonl"), "not json\n");
    const r = await run("sessions", "--json");
    assert.equal(r.code, 0, r.stderr);
    const parsed = JSON.parse(r.stdout) as { sessions: { id: string }[]; notices: unknown[] };
    // Directory order is the filesystem's: compare in ID order.
    parsed.sessions.sort((a, b) => a.id.localeCompare(b.id));
    const normalized = `${JSON.stringify(parsed, null, 2)}\n`;
    assert.equal(normalized, golden("real-sessions.json.txt", normalized));
  });

  it("show: exact open and the history; another folder's session is refused in one line", async (t) => {
    if (!(await skipUnless(t, ["session.open", "session.history"]))) return;
    writeHistory(box.home, "alpha", box.workspace, "Alpha work");
    writeHistory(box.home, "foreign", "/elsewhere/project", "Not ours");
    const r = await run("show", "alpha");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, golden("real-show.txt", r.stdout));
    const refused = await run("show", "foreign");
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^mc-agent: .+ \(cwd_mismatch\)\. Run this from the folder the session belongs to\.\n$/,
    );
  });

  it("models, refresh (refreshed, then failed), models again: golden outputs", async (t) => {
    if (!(await skipUnless(t, ["model.refresh", "model.catalog", "model.catalog.status"]))) return;
    const good = await provider({ models: ["m1", "m2"] });
    writeProviderSettings(box.home, "lp", good.url, ["lp/m1"]);
    const before = await run("models");
    assert.equal(before.code, 0, before.stderr);
    assert.equal(before.stdout, golden("real-models-before.txt", before.stdout));
    const refreshed = await run("refresh", "lp");
    assert.equal(refreshed.code, 0, refreshed.stderr);
    assert.equal(refreshed.stdout, golden("real-refresh-refreshed.txt", refreshed.stdout));
    const after = await run("models");
    assert.equal(after.stdout, golden("real-models-after.txt", after.stdout));
    const rejecting = await provider({ models: [], status: 401 });
    writeProviderSettings(box.home, "lp", rejecting.url, ["lp/m1"]);
    const failed = await run("refresh", "lp");
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout, golden("real-refresh-failed.txt", failed.stdout));
  });

  it("sessions on a real TTY: progress line over several steps, then the table", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    if (!(await skipUnless(t, ["session.discover", "operation.cancel"]))) return;
    // More than one page (page_entries 100), so discovery takes several steps.
    for (let i = 0; i < 120; i += 1)
      writeHistory(box.home, `s${String(i).padStart(3, "0")}`, box.workspace);
    const line = `exec ${shellQuote(process.execPath)} ${shellQuote(CHILD_BIN)} sessions --all`;
    const pty = new PtyRun(line, { cwd: box.workspace, env: { ...env, NO_COLOR: "1" } });
    closers.push(async () => pty.kill());
    assert.equal(await pty.done, 0, JSON.stringify(pty.output.slice(-500)));
    assert.ok(
      pty.output.includes("\r\x1b[2KDiscovering sessions… 100 provisional rows"),
      pty.output.slice(0, 400),
    );
    assert.equal(
      pty.output.match(/^s\d{3} +Title s\d{3} +2026-11-29 10:00 +\$0\.00\r?$/gm)?.length,
      120,
    );
  });

  it("refresh on a real TTY: the wait is timed, Ctrl-C cancels the real refresh, exit 130", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    if (
      !(await skipUnless(t, [
        "model.refresh",
        "model.catalog",
        "model.catalog.status",
        "operation.cancel",
      ]))
    )
      return;
    const stalled = await provider({ models: ["m1"], stall: true });
    writeProviderSettings(box.home, "slowp", stalled.url, ["slowp/m1"]);
    const line = `exec ${shellQuote(process.execPath)} ${shellQuote(CHILD_BIN)} refresh slowp`;
    const pty = new PtyRun(line, { cwd: box.workspace, env });
    closers.push(async () => pty.kill());
    await pty.waitFor("Refreshing slowp… (Ctrl-C cancels)");
    // Ctrl-C once the refresh is certainly running: its request has reached the provider.
    await until(() => stalled.held() > 0, "the refresh reached the provider");
    // A provider that never answers: the line says how long it has waited and how to cancel.
    await pty.waitFor("s and no answer yet. Ctrl-C cancels it.", 30_000);
    assert.match(pty.output, /Refreshing slowp: \d+ s and no answer yet\./);
    pty.type("\x03");
    assert.equal(await pty.done, 130, JSON.stringify(pty.output));
    assert.ok(pty.output.includes("Cancelling… waiting for the backend to confirm"));
    assert.ok(pty.output.includes("Refresh of slowp cancelled (operation_cancelled)"));
    assert.ok(pty.output.includes("slowp (in use): no catalog has been cached for it yet"));
  });
});
