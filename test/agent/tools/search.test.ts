import assert from "node:assert/strict";
import { test } from "node:test";
import { SEARCH_FILE_BYTES, SEARCH_MATCHES } from "../../../src/agent/tools/search.js";
import { call, context, plan, put, tempWorkspace, toolError, within } from "./fixture.js";

test("search prints path:line:text in name order, skipping .git, binaries and big files", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "src/b.ts", "const needle = 1;\nother\nneedle again\n");
  put(workspace, "a.md", "a needle\r\n");
  put(workspace, ".git/objects/x", "needle\n");
  put(workspace, "bin.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0])]));
  put(workspace, "big.txt", `needle\n${"x".repeat(SEARCH_FILE_BYTES)}`);
  const ctx = context(workspace);
  const found = await call("search", { pattern: "needle" }, ctx);
  assert.equal(
    found.output,
    "a.md:1:a needle\nsrc/b.ts:1:const needle = 1;\nsrc/b.ts:3:needle again",
  );
  assert.equal(found.summary, "3 matches");
  const inSrc = await plan("search", { pattern: "^needle", path: "src" }, ctx);
  assert.equal(inSrc.title, 'Search "^needle" in src');
  const inSrcFound = await inSrc.execute(ctx);
  assert.equal(inSrcFound.output, "src/b.ts:3:needle again");
  assert.equal(inSrcFound.summary, "1 match");
  const oneFile = await call("search", { pattern: "needle", path: "src/b.ts" }, ctx);
  assert.equal(oneFile.output.split("\n").length, 2);
  assert.equal((await call("search", { pattern: "absent" }, ctx)).output, "No matches.");
});

test("search honours .gitignore at every depth (a deeper rule wins) and info/exclude", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, ".gitignore", "*.log\nbuild/\n");
  put(workspace, ".git/info/exclude", "secret.txt\n");
  put(workspace, "app.log", "hit\n");
  put(workspace, "build/out.js", "hit\n");
  put(workspace, "secret.txt", "hit\n");
  put(workspace, "keep/.gitignore", "!keep.log\nlocal.txt\n");
  put(workspace, "keep/keep.log", "hit\n");
  put(workspace, "keep/local.txt", "hit\n");
  put(workspace, "keep/ok.txt", "hit\n");
  put(workspace, "ok.txt", "hit\n");
  const ctx = context(workspace);
  const found = await call("search", { pattern: "hit" }, ctx);
  assert.equal(found.output, "keep/keep.log:1:hit\nkeep/ok.txt:1:hit\nok.txt:1:hit");
  // Rules above a search root still apply below it.
  const inKeep = await call("search", { pattern: "hit", path: "keep" }, ctx);
  assert.equal(inKeep.output, "keep/keep.log:1:hit\nkeep/ok.txt:1:hit");
});

test("search's glob keeps only matching workspace paths", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "src/a.ts", "hit\n");
  put(workspace, "src/deep/b.ts", "hit\n");
  put(workspace, "src/c.js", "hit\n");
  put(workspace, "d.ts", "hit\n");
  const ctx = context(workspace);
  const ts = await call("search", { pattern: "hit", glob: "*.ts" }, ctx);
  assert.equal(ts.output, "d.ts:1:hit\nsrc/a.ts:1:hit\nsrc/deep/b.ts:1:hit");
  const deep = await call("search", { pattern: "hit", glob: "src/**/*.ts" }, ctx);
  assert.equal(deep.output, "src/a.ts:1:hit\nsrc/deep/b.ts:1:hit");
});

test(`search: ${SEARCH_MATCHES} matches at most (at the bound and one past)`, async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "at.txt", "hit\n".repeat(SEARCH_MATCHES));
  put(workspace, "past/a.txt", "hit\n".repeat(SEARCH_MATCHES - 1));
  put(workspace, "past/b.txt", "hit\nhit\n");
  const ctx = context(workspace);
  const at = await call("search", { pattern: "hit", path: "at.txt" }, ctx);
  assert.equal(at.output.split("\n").length, SEARCH_MATCHES);
  assert.equal(at.summary, "200 matches");
  const past = await call("search", { pattern: "hit", path: "past" }, ctx);
  const shown = past.output.split("\n");
  assert.equal(shown.length, SEARCH_MATCHES + 1);
  assert.equal(shown.at(-2), "past/b.txt:1:hit");
  assert.equal(shown.at(-1), "[more matches not shown: the 200-match limit]");
  assert.equal(past.summary, "200+ matches");
});

test("search refuses an invalid regex as a tool error; long lines are cut", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "a.txt", `${"x".repeat(600)}hit\n`);
  const ctx = context(workspace);
  assert.match(
    await toolError("search", { pattern: "(unclosed" }, ctx),
    /^invalid regular expression/,
  );
  assert.match(await toolError("search", { pattern: "" }, ctx), /^invalid input/);
  // Legacy syntax that Unicode mode refuses still works.
  assert.equal((await call("search", { pattern: "\\-" }, ctx)).output, "No matches.");
  const long = await call("search", { pattern: "hit" }, ctx);
  assert.equal(long.output, `a.txt:1:${"x".repeat(500)}…`);
});

test("a catastrophic regex runs off the protocol loop and an abort ends it", async (t) => {
  const { workspace } = tempWorkspace(t);
  put(workspace, "a.txt", `${"a".repeat(64)}b\n`); // (a+)+$ backtracks 2^64 times on this line
  const abort = new AbortController();
  const ctx = context(workspace, { signal: abort.signal });
  const planned = await plan("search", { pattern: "(a+)+$" }, ctx);
  let ticks = 0;
  const ticker = setInterval(() => {
    ticks++;
    if (ticks === 5) abort.abort(); // the loop kept turning while the pattern backtracked
  }, 20);
  try {
    const result = await within(planned.execute(ctx));
    assert.deepEqual([result.status, result.summary], ["interrupted", "interrupted"]);
    assert.ok(ticks >= 5);
  } finally {
    clearInterval(ticker);
  }
});
