/**
 * The one seam for tests (src/server/test-seam.ts, issue 37): test behaviour comes from the
 * environment in one place, a normal child builds the production seam whatever its environment
 * says, and the domain rooms' types carry no field named or meant for tests (each switch reaches
 * them as a production option: a bound, a positional write, commit steps, a file opener).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { PRODUCTION_SEAM, testSeamFor } from "../../src/server/test-seam.js";
import { PACKAGE_ROOT } from "../helpers/child.js";

/** Every switch docs/ documents, each set to a value a test build honours. */
const EVERY_SWITCH = {
  MC_AGENT_TEST_HTTP_WALL_MS: "300",
  MC_AGENT_TEST_ENRICHMENT_WALL_MS: "250",
  MC_AGENT_TEST_CONNECT_MS: "200",
  MC_AGENT_TEST_IDLE_MS: "250",
  MC_AGENT_TEST_BACKOFF_PERCENT: "10",
  MC_AGENT_TEST_COMMIT_FAULT: "folder_sync_fails",
  MC_AGENT_TEST_APPEND_FAULT: "enospc:assistant_message",
  MC_AGENT_TEST_HOLD_TURN_END: "1",
  MC_AGENT_TEST_BLOCKING_OPEN: "1",
  MC_AGENT_TEST_CREDENTIAL_PAUSE: "/nowhere",
  MC_AGENT_TEST_VERDICT_MARGIN_MS: "0",
  MC_AGENT_TEST_VERDICT_SYNC: "1",
};

const SEAM_FILES = new Set(["src/server/test-seam.ts", "src/server/test-faults.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(PACKAGE_ROOT, path)] : [];
  });
}

const read = (file: string) => readFileSync(join(PACKAGE_ROOT, file), "utf8");

describe("the test seam", () => {
  test("a normal child builds the production seam, whatever its environment says", () => {
    assert.equal(testSeamFor(EVERY_SWITCH), PRODUCTION_SEAM);
    assert.equal(testSeamFor({ ...EVERY_SWITCH, MC_AGENT_TEST_METHODS: "0" }), PRODUCTION_SEAM);
    assert.equal(testSeamFor({ ...EVERY_SWITCH, MC_AGENT_TEST_METHODS: "true" }), PRODUCTION_SEAM);
    const testBuild = testSeamFor({ ...EVERY_SWITCH, MC_AGENT_TEST_METHODS: "1" });
    assert.equal(testBuild.testMethods, true);
    assert.equal(typeof testBuild.historyWrite, "function");
    assert.equal(typeof testBuild.cacheCommit?.rename, "function");
    assert.equal(typeof testBuild.readFileOpener, "function");
    assert.equal(typeof testBuild.credentialWrite, "function");
    assert.equal(testBuild.holdTurnEnd, true);
    assert.equal(testBuild.retryBackoffScale, 0.1);
  });

  test("a test build with no switch set runs as a normal child, test methods aside", () => {
    assert.deepEqual(testSeamFor({ MC_AGENT_TEST_METHODS: "1" }), {
      ...PRODUCTION_SEAM,
      testMethods: true,
    });
  });

  test("only the seam reads a test switch from the environment", () => {
    const readers = sourceFiles(join(PACKAGE_ROOT, "src")).filter(
      (file) => !SEAM_FILES.has(file) && /env(\.|\[["'])MC_AGENT_TEST_/.test(read(file)),
    );
    assert.deepEqual(readers, []);
  });

  test("the domain rooms' types carry no field named or documented for tests", () => {
    const rooms = ["agent", "models", "sessions", "store"];
    const named = /^\s*(readonly\s+)?(test[A-Z]\w*|\w+ForTests)\??:/m;
    const documented = /test builds? only|tests only/i;
    const offenders = rooms
      .flatMap((room) => sourceFiles(join(PACKAGE_ROOT, "src", room)))
      .filter((file) => named.test(read(file)) || documented.test(read(file)));
    assert.deepEqual(offenders, []);
  });
});
