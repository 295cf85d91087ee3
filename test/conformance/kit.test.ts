import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CHILD_BIN, PACKAGE_ROOT } from "../../src/conformance/harness.js";
import type { SuiteReport } from "../../src/conformance/runner.js";

/** `mc-agent conformance` end to end: against this package's child and against broken ones. */
const BROKEN = join(PACKAGE_ROOT, "test", "fixtures", "broken-child.mjs");

interface KitRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function kit(args: string[], timeoutMs = 60_000): Promise<KitRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CHILD_BIN, "conformance", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    proc.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`conformance run timed out; stdout: ${stdout.slice(-2000)}`));
    }, timeoutMs);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function report(run: KitRun): SuiteReport {
  return JSON.parse(run.stdout) as SuiteReport;
}

const ONE_CASE = ["--filter", "cancel.timing.during"];
const brokenChild = (mode: string) => [
  "--test-methods",
  ...ONE_CASE,
  "--",
  process.execPath,
  BROKEN,
  mode,
];

describe("mc-agent conformance", () => {
  test("passes against mc-agent itself (default command), exit 0", {
    timeout: 90_000,
  }, async () => {
    const run = await kit(["--json", "--filter", "cancel.timing"]);
    const result = report(run);
    assert.equal(run.code, 0, run.stdout);
    assert.ok(result.summary.total >= 5, "the filter selected the cancellation cases");
    assert.equal(result.summary.failed, 0);
    assert.equal(result.summary.skipped, 0, "its own child offers the test methods");
  });

  test("runs a command given after --, skipping test-method cases unless told", async () => {
    const command = ["--", process.execPath, CHILD_BIN, "stdio"];
    const skipped = report(await kit(["--json", ...ONE_CASE, ...command]));
    assert.equal(skipped.summary.skipped, 1);
    const run = await kit(["--json", "--test-methods", ...ONE_CASE, ...command]);
    assert.equal(run.code, 0, run.stdout);
    assert.equal(report(run).summary.passed, 1);
  });

  test("fails a child that answers a request twice, with the wire transcript", async () => {
    const run = await kit(brokenChild("double-answer"));
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /^FAIL MUST\s+cancel\.timing\.during/m);
    assert.match(run.stdout, /2 responses to ID "sleep\d+", sent 1 time/);
    assert.match(run.stdout, /wire transcript/);
    assert.match(run.stdout, /<< \{"id":"sleep\d+","error":\{"code":"operation_cancelled"/);
    assert.match(run.stdout, /1 cases: 0 passed, 1 failed \(1 MUST\).*NOT conformant/);
  });

  test("fails a child that serves a reused request ID again", async () => {
    const run = await kit([
      "--test-methods",
      "--filter",
      "base.ids.reuse",
      "--",
      process.execPath,
      BROKEN,
      "forget-ids",
    ]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /^FAIL MUST\s+base\.ids\.reuse/m);
    assert.match(run.stdout, /- 'duplicate_request_id'/);
    assert.match(run.stdout, />> \{"id":"same","method":"operation\.cancel"/);
  });

  test("fails a child that serves a used cursor again", async () => {
    const run = await kit([
      "--filter",
      "sessions.list.cursor_single_use",
      "--",
      process.execPath,
      BROKEN,
      "replay-cursor",
    ]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /^FAIL MUST\s+sessions\.list\.cursor_single_use/m);
    assert.match(run.stdout, /error: a used cursor is refused/);
    assert.match(run.stdout, />> \{"id":"r\d+","method":"session\.list","params":\{"cursor":/);
  });

  test("fails a child whose error messages leak a path (JSON report)", async () => {
    const run = await kit(["--json", ...brokenChild("leak-path")]);
    assert.equal(run.code, 1);
    const [outcome] = report(run).cases;
    assert.equal(outcome?.ok, false);
    assert.match(outcome?.error ?? "", /error message carries a path/);
    assert.ok(outcome?.transcript?.some((line) => line.includes("s1.jsonl")));
  });

  test("fails a child that answers out of schema", async () => {
    const run = await kit(["--json", ...brokenChild("out-of-schema")]);
    assert.equal(run.code, 1);
    assert.match(report(run).cases[0]?.error ?? "", /status result outside its schema/);
  });

  test("fails a child whose turn events have a gap in seq", async () => {
    const run = await kit(["--filter", "turns.text", "--", process.execPath, BROKEN, "drop-event"]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /^FAIL MUST\s+turns\.text\.streamed_and_saved/m);
    assert.match(run.stdout, /seq counts from 0 without gaps/);
  });

  test("fails a child whose turn results carry the provider key", async () => {
    const run = await kit([
      "--json",
      "--filter",
      "turns.wire",
      "--",
      process.execPath,
      BROKEN,
      "leak-key",
    ]);
    assert.equal(run.code, 1, run.stdout);
    const [outcome] = report(run).cases;
    assert.equal(outcome?.id, "turns.wire.no_leaks");
    assert.match(outcome?.error ?? "", /carries a credential/);
  });

  test("usage errors exit 2", async () => {
    const run = await kit(["--tier", "MAYBE"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--tier takes MUST, SHOULD or INFO/);
  });
});
