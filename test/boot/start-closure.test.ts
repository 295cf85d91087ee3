import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PACKAGE_ROOT } from "../../src/conformance/harness.js";

/**
 * What the child's start loads (docs/benchmarks.md, "Start-up profile"): the static import
 * closure of dist/child/stdio.js, read from the metafile scripts/bundle.js writes beside the
 * bundle. Everything a frontend's first `initialize` does not need is imported on first use,
 * each a chunk of its own: the turn engine with its providers, tools and ajv (the first
 * turn.start), the MCP SDK (the first server started), undici (the first refresh or model
 * call), the revert's diff (the first turn.revert). A static import added anywhere on the start
 * path would pull one of them back into every child's start; this test names it.
 */
interface Metafile {
  outputs: Record<
    string,
    { bytes: number; imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }
  >;
}

const meta = JSON.parse(
  readFileSync(join(PACKAGE_ROOT, "dist", "child-meta.json"), "utf8"),
) as Metafile;

/** The output files `from` loads before its first line runs, and the inputs they hold. */
function startClosure(from = "dist/child/stdio.js"): { files: string[]; inputs: string[] } {
  const files = new Set<string>();
  const pending = [from];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const output = meta.outputs[file];
    if (files.has(file) || output === undefined) continue;
    files.add(file);
    for (const imported of output.imports)
      if (imported.kind === "import-statement" && imported.path in meta.outputs)
        pending.push(imported.path);
  }
  const inputs = [...files].flatMap((file) => Object.keys(meta.outputs[file]?.inputs ?? {}));
  return { files: [...files], inputs };
}

/** Loaded on first use, never at the start: a pattern of the input paths each comes from. */
const LAZY: Record<string, RegExp> = {
  "the turn engine": /dist\/src\/agent\/engine\.js$/,
  "turn admission": /dist\/src\/server\/handlers\/turn-admission\.js$/,
  // Not provider.js, the interface (its bounds are read by the test switches): the formats.
  "the model providers": /dist\/src\/agent\/providers\/(?!provider\.js$)/,
  "the agent's tools": /dist\/src\/agent\/tools\/index\.js$/,
  "the MCP tools' schema checks": /dist\/src\/agent\/mcp-tools\/mcp-tool\.js$/,
  ajv: /node_modules\/ajv(-formats)?\//,
  // On Node 20's script these three are files of their own (dist/child/vendor/), each required
  // from the init of a stand-in module (scripts/bundle.js, `vendorApart`).
  undici: /node_modules\/undici\/|^vendor-apart:undici$/,
  "the MCP SDK": /node_modules\/@modelcontextprotocol\/sdk\//,
  "the OpenAI SDK": /node_modules\/openai\/|^vendor-apart:openai$/,
  "the Anthropic SDK": /node_modules\/@anthropic-ai\/|^vendor-apart:@anthropic-ai\/sdk$/,
  "the SSE parser": /node_modules\/eventsource-parser\//,
  "the search's ignore rules": /node_modules\/ignore\//,
  "the revert's diff": /node_modules\/diff\//,
};

test("the child's start loads none of what only a turn, a refresh or a revert needs", () => {
  const { inputs } = startClosure();
  assert.ok(
    inputs.some((input) => input.endsWith("dist/src/server/stdio.js")),
    "the metafile names the child's entry",
  );
  for (const [what, pattern] of Object.entries(LAZY)) {
    const found = inputs.filter((input) => pattern.test(input));
    assert.deepEqual(found, [], `${what} is imported at the child's start`);
  }
});

test("each lazy part is still in the bundle, behind a dynamic import", () => {
  const all = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs));
  for (const [what, pattern] of Object.entries(LAZY))
    assert.ok(
      all.some((input) => pattern.test(input)),
      `${what} is in no output file of the child's bundle`,
    );
  const dynamic = Object.values(meta.outputs).flatMap((output) =>
    output.imports.filter((imported) => imported.kind === "dynamic-import"),
  );
  assert.ok(
    dynamic.some((imported) => /chunks\/turn-engine-[^/]+\.js$/.test(imported.path)),
    "the turn engine is a chunk of its own",
  );
});

/**
 * What a child's first turn.start loads with the turn engine (issue 44, "Opening a big history":
 * the first turn of a fresh child pays it): nothing only an MCP tool call or a skill or command
 * file with front matter needs. ajv with its formats and validator was about a third of that
 * load, the YAML parser about a fifth; each is a chunk of its own, imported at its first use.
 */
const FIRST_USE: Record<string, RegExp> = {
  ajv: /node_modules\/ajv(-formats)?\//,
  "the MCP SDK's ajv validator":
    /node_modules\/@modelcontextprotocol\/sdk\/dist\/esm\/validation\//,
  "the YAML parser": /node_modules\/yaml\//,
};

test("the turn engine's load leaves ajv and the YAML parser to their first use", () => {
  const chunk = Object.keys(meta.outputs).find((file) =>
    /chunks\/turn-engine-[^/]+\.js$/.test(file),
  );
  assert.ok(chunk, "the turn engine is a chunk of its own");
  const { inputs } = startClosure(chunk);
  assert.ok(inputs.some((input) => input.endsWith("dist/src/agent/engine.js")));
  for (const [what, pattern] of Object.entries(FIRST_USE)) {
    const found = inputs.filter((input) => pattern.test(input));
    assert.deepEqual(found, [], `${what} is loaded with the turn engine`);
  }
});

/**
 * Node 20's start (src/boot/code-cache.ts) runs dist/child/stdio.cjs, the same child as one
 * CommonJS script: there each lazy module is in an init function of esbuild's (`__esm` for ES
 * modules, `__commonJS` for CommonJS ones, named by the module's path) that the `import()`
 * loading it runs. The bundle's top level, run in a node of its own with those two helpers
 * recording what they run, must run none of the lazy parts.
 */
test("the CommonJS bundle's top level runs none of them either; each is in it behind an init", () => {
  const bundle = join(PACKAGE_ROOT, "dist", "child", "stdio.cjs");
  const source = readFileSync(bundle, "latin1");
  const wrapped = new Set(
    [...source.matchAll(/(?:__esm|__commonJS)\(\{\n\s+"([^"]+)"/g)].map((match) => match[1]),
  );
  for (const [what, pattern] of Object.entries(LAZY))
    assert.ok(
      [...wrapped].some((path) => path !== undefined && pattern.test(path)),
      `${what} is not in an init function of stdio.cjs`,
    );
  const recorder = `
    const { readFileSync } = require("node:fs");
    const { createRequire } = require("node:module");
    const { dirname } = require("node:path");
    const { Script } = require("node:vm");
    const bundle = process.argv[1];
    const ran = [];
    globalThis.__mcRan = (name) => ran.push(name);
    let source = readFileSync(bundle, "latin1");
    const esm = /var __esm = \\(fn, [^)]*\\) => function __init\\(\\) \\{/;
    const cjs = /var __commonJS = \\(cb, mod\\) => function __require\\(\\) \\{/;
    if (!esm.test(source) || !cjs.test(source)) throw new Error("esbuild's helpers not found");
    source = source
      .replace(esm, (head) => head + " if (fn) __mcRan(__getOwnPropNames(fn)[0]);")
      .replace(cjs, (head) => head + " if (!mod) __mcRan(__getOwnPropNames(cb)[0]);");
    const run = new Script(source, { filename: bundle }).runInThisContext();
    const m = { exports: {} };
    run.call(m.exports, m.exports, createRequire(bundle), m, bundle, dirname(bundle));
    if (typeof m.exports.runStdio !== "function") throw new Error("no runStdio");
    process.stdout.write(JSON.stringify(ran));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ["-e", recorder, bundle], {
    encoding: "utf8",
    env: { PATH: process.env.PATH },
  });
  assert.equal(run.status, 0, run.stderr);
  const ran = JSON.parse(run.stdout) as string[];
  assert.ok(ran.length > 0, "the recorder saw the start's own init functions");
  for (const [what, pattern] of Object.entries(LAZY)) {
    const found = ran.filter((path) => pattern.test(path));
    assert.deepEqual(found, [], `${what} runs at the top level of stdio.cjs`);
  }
});

test("Node 20's script leaves undici and the SDKs to files of their own beside it", () => {
  const child = join(PACKAGE_ROOT, "dist", "child");
  const source = readFileSync(join(child, "stdio.cjs"), "latin1");
  for (const [name, file] of [
    ["undici", "undici"],
    ["openai", "openai"],
    ["@anthropic-ai/", "anthropic-ai-sdk"],
  ]) {
    assert.ok(!source.includes(`// node_modules/${name}`), `${name} is bundled into stdio.cjs`);
    assert.ok(
      source.includes(`require("./vendor/${file}.cjs")`),
      `stdio.cjs never requires ${file}`,
    );
    const vendor = readFileSync(join(child, "vendor", `${file}.cjs`), "latin1");
    assert.ok(vendor.includes(`// node_modules/${name}`), `vendor/${file}.cjs lacks ${name}`);
  }
});
