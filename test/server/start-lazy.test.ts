import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { PACKAGE_ROOT, sandbox, TestChild } from "../../src/conformance/harness.js";
import { CAPABILITIES } from "../../src/protocol/capabilities.js";

/**
 * The child's start builds only the schemas it uses (docs/codegen.md, "Writing a schema: built
 * on first use"; docs/benchmarks.md, "Start-up profile"): building all of them at import was a
 * quarter of importing the child's bundle. A test build's `test.schemas` names the exported
 * schemas the child has built so far; a schema built at import again, or a table that builds
 * every method's, makes the list long and this test names what came back.
 */

/** What frame parsing, admission, `initialize` (all capabilities) and `status` build. */
const START = [
  // initialize: its params. Its result, valid, takes the exact fast check (initialize-check.ts),
  // so neither InitializeResult nor any extension's parameter schema is built for it.
  "lifecycle.InitializeParams",
  // test.schemas' params (status and shutdown check theirs without the schema); its result is
  // built when its answer is checked, after the list was taken.
  "common.EmptyParams",
];

async function builtSoFar(child: TestChild): Promise<{ built: string[]; builds: number }> {
  const frame = await child.request("test.schemas", {});
  assert.ok(frame.result, `test.schemas failed: ${JSON.stringify(frame.error)}`);
  return frame.result as { built: string[]; builds: number };
}

test("a child that answered initialize and status has built only their schemas", async () => {
  const box = sandbox();
  // The full child answers the initialize (the starter answers this one too, since it may
  // negotiate `turn`, and then the child builds none of its schemas: test/boot/fast-start*.ts).
  const child = new TestChild({
    cwd: box.workspace,
    home: box.home,
    testMethods: true,
    env: { MC_AGENT_FAST_START: "0" },
  });
  try {
    const init = await child.initialize([...CAPABILITIES]);
    assert.ok(init.result, `initialize failed: ${JSON.stringify(init.error)}`);
    const status = await child.request("status", {});
    assert.ok(status.result, `status failed: ${JSON.stringify(status.error)}`);
    const { built, builds } = await builtSoFar(child);
    assert.deepEqual(built, [...START].sort());
    // Counting the unexported ones too (parts of those, the store's and the records' schemas):
    // none when this was written, in a home with no settings file; the protocol has 113.
    assert.ok(builds <= START.length + 5, `${builds} lazy values built at the start`);
  } finally {
    await child.close();
    box.cleanup();
  }
});

test("a method's schemas are built on its first request, and only its own", async () => {
  const box = sandbox();
  const child = new TestChild({ cwd: box.workspace, home: box.home, testMethods: true });
  try {
    const init = await child.initialize([...CAPABILITIES]);
    assert.ok(init.result, `initialize failed: ${JSON.stringify(init.error)}`);
    await builtSoFar(child); // test.schemas' own result schema, built when its answer was checked
    const before = new Set((await builtSoFar(child)).built);
    assert.ok(!before.has("sessions.SessionListResult"));
    const listed = await child.request("session.list", {});
    assert.ok(listed.result, `session.list failed: ${JSON.stringify(listed.error)}`);
    const added = (await builtSoFar(child)).built.filter((name) => !before.has(name));
    // session.list's params are CursorParams, exported by common and re-exported per method.
    assert.deepEqual(added, [
      "common.Cursor",
      "common.CursorParams",
      "common.IsoTime",
      "common.SessionId",
      "sessions.SessionEntry",
      "sessions.SessionListResult",
      "sessions.SessionNotice",
    ]);
  } finally {
    await child.close();
    box.cleanup();
  }
});

test("importing the child, the protocol or the client SDK builds no schema", () => {
  const dist = join(PACKAGE_ROOT, "dist", "src");
  for (const entry of ["server/stdio.js", "protocol/index.js", "client/index.js"]) {
    const script = [
      `await import(${JSON.stringify(join(dist, entry))});`,
      `const { lazyBuilds } = await import(${JSON.stringify(join(dist, "protocol", "lazy.js"))});`,
      "process.stdout.write(String(lazyBuilds()));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { PATH: process.env.PATH },
      encoding: "utf8",
    });
    assert.equal(out, "0", `importing ${entry} built ${out} lazy values`);
  }
});
