#!/usr/bin/env node
// Runs every compiled test file under dist/test with Node's own test runner.
// Usage: node scripts/run-tests.js [substring filter ...]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function collect(dir) {
  let files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files = files.concat(collect(path));
    else if (entry.name.endsWith(".test.js")) files.push(path);
  }
  return files;
}

const filters = process.argv.slice(2);
const files = collect("dist/test")
  .filter((f) => filters.length === 0 || filters.some((needle) => f.includes(needle)))
  .sort();
if (files.length === 0) {
  // node --test with no file falls back to its own search and would run fixtures as tests.
  console.error(`no test file matches ${filters.join(" ")}`);
  process.exit(2);
}
const concurrency = process.env.MC_TEST_CONCURRENCY ?? "2";
// A child that inherits the test's environment must not put its verdict cache into the real
// user's ~/.cache: every child of the run that does not name its own gets this temp one.
const cacheDir = mkdtempSync(join(tmpdir(), "mc-test-cache-"));
const result = spawnSync(
  process.execPath,
  ["--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", ...files],
  { stdio: "inherit", env: { ...process.env, MC_AGENT_CACHE_DIR: cacheDir } },
);
rmSync(cacheDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
