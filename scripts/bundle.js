// Bundles the backend child (`mc-agent stdio`) into one ES module, dist/child/stdio.js, with the
// record worker beside it (the parser finds it as "./parse-worker.js" next to itself, bundled or
// not). Why: a frontend spawns the child once per workspace, and loading its 161 separate
// modules (66 of ours, 95 of zod's) was most of its start: 125-140 ms from spawn to the
// initialize result instead of 180-260 (docs/benchmarks.md). What a start does not need is
// imported on first use, each a chunk of its own under chunks/ that start never loads: the turn
// engine with its providers, tools and ajv (the first turn.start), undici and the SDKs (the
// first refresh or model call), the revert's diff (the first turn.revert); bundled, undici loads
// in about 30 ms instead of 50 (one file instead of a hundred), a pause the first model call of
// a child would otherwise take on its event loop. test/boot/start-closure.test.ts keeps them
// out of the start's static imports, read from the metafile written beside dist/child.
// On Node 20 the child starts instead from dist/child/stdio.cjs, the same entry as one CommonJS
// script compiled with V8's code cache (src/boot/code-cache.ts), built at the end of this file.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { acpScripts } from "./acp-later-split.js";
import { acpSchemasOnFirstUse } from "./acp-schemas-on-first-use.js";

// Chunk names carry content hashes: without this, every build would leave the old ones behind.
rmSync("dist/child", { recursive: true, force: true });

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  target: "node20",
  legalComments: "none",
  // undici is CommonJS and requires Node's own modules: an ES module output has no `require`,
  // so every output file gets one of its own.
  banner: {
    js: 'import { createRequire as __mcCreateRequire } from "node:module"; const require = __mcCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
  // jsonc-parser's "main" is a UMD build whose lazy require()s esbuild cannot follow; its ES
  // module build bundles cleanly.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  // The ACP SDK's schemas, built on first use in `mc-agent acp`'s bundles (nothing else has them):
  // see acp-schemas-on-first-use.js.
  plugins: [englishOnlyZod(), acpSchemasOnFirstUse()],
};

/**
 * zod's `z` and `z.core` re-export all of its 50 locales (`z.locales`), which nothing here uses:
 * 366 KB of the child's 1.2 MB start-up bundle, and most of its non-ASCII text (a module's
 * source stays in memory, as two-byte text when it is not all Latin-1). Dropping them made no
 * measurable difference to the start's time (docs/benchmarks.md, "Start-up profile"), only to
 * what is read and held. The child keeps zod's default, English (which zod's schemas import by
 * themselves); `z.locales` holds only `en`.
 */
function englishOnlyZod() {
  return {
    name: "zod-english-only",
    setup(b) {
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir)
          ? {
              path: "zod-locales",
              namespace: "zod-english-only",
              pluginData: join(args.resolveDir, "..", "locales"),
            }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
        contents: 'export { default as en } from "./en.js";',
        resolveDir: args.pluginData,
        loader: "js",
      }));
    },
  };
}

/**
 * The packages of the Node 20 script that only a model call or a refresh loads (undici and the
 * two provider SDKs: 2.6 MB of the script's 4.3 MB), required from files of their own beside it
 * (dist/child/vendor/) instead of bundled into it. Every child start reads the whole script and
 * makes a string of it, for code it does not run before its first model call; without them a
 * warm start to a session ready took 0.89 of the time (docs/benchmarks.md, "Start-up to a
 * session ready against Codex"), and the first model call requires their files instead, about
 * as fast as it ran them from the script (undici 30 ms either way). Each is whole in its file:
 * none of them imports another, nor anything of ours.
 */
const VENDOR = ["undici", "openai", "@anthropic-ai/sdk"];
const vendorName = (name) => name.replace(/^@/, "").replace(/\//g, "-");
const VENDOR_NAME = new RegExp(`^(${VENDOR.map((name) => name.replace("/", "\\/")).join("|")})$`);
function vendorApart() {
  return {
    name: "vendor-apart",
    setup(b) {
      // A module of the package's name standing for the file: bundled, so an `import()` of it
      // becomes esbuild's call of its init function (a CommonJS script has no import()), whose
      // `require` of the file is left to run (resolved beside the script: code-cache.ts). An ES
      // module re-exporting the file, so its `default` is the package's own (a CommonJS stand-in
      // would be its own default under Node's interop).
      b.onResolve({ filter: VENDOR_NAME }, (args) => ({
        path: args.path,
        namespace: "vendor-apart",
      }));
      b.onLoad({ filter: /.*/, namespace: "vendor-apart" }, (args) => ({
        contents: reExport(`./vendor/${vendorName(args.path)}.cjs`),
        loader: "js",
      }));
      b.onResolve({ filter: /^\.\/vendor\//, namespace: "vendor-apart" }, (args) => ({
        path: args.path,
        external: true,
      }));
    },
  };
}
/**
 * undici's cookie helpers check their argument against its own `Headers` and the global one,
 * which they read as undici loads: that read alone makes Node load its own copy of undici
 * (above). Nothing here calls them; in the vendored file they accept undici's `Headers` only.
 * test/boot/vendor-headers.test.ts fails if an undici upgrade changes the line.
 */
function cookiesOwnHeaders() {
  const file = /undici[\\/]lib[\\/]web[\\/]cookies[\\/]index\.js$/;
  return {
    name: "cookies-own-headers",
    setup(b) {
      b.onLoad({ filter: file }, (args) => ({
        contents: readFileSync(args.path, "utf8").replace(
          "[Headers, globalThis.Headers].filter(Boolean)",
          "[Headers]",
        ),
        loader: "js",
      }));
    },
  };
}

/** `undici` in a vendor file is its sibling, dist/child/vendor/undici.cjs, never a second copy. */
function undiciBeside() {
  return {
    name: "undici-beside",
    setup(b) {
      b.onResolve({ filter: /^undici$/ }, () => ({ path: "./undici.cjs", external: true }));
    },
  };
}
const reExport = (from) => `export * from "${from}"; export { default } from "${from}";`;

/** Each vendor file built from its package's ES module entry (its `default` kept). */
function vendorEntries() {
  return {
    name: "vendor-entries",
    setup(b) {
      b.onResolve({ filter: /^vendor-entry:/ }, (args) => ({
        path: args.path.slice("vendor-entry:".length),
        namespace: "vendor-entry",
      }));
      b.onLoad({ filter: /.*/, namespace: "vendor-entry" }, (args) => ({
        contents: reExport(args.path),
        loader: "js",
        resolveDir: process.cwd(),
      }));
    },
  };
}

const child = await build({
  ...common,
  entryPoints: {
    stdio: "dist/src/server/stdio.js",
    // Loaded by src/entry.ts before the ACP agent's ES bundle: see src/boot/heap-flags.ts.
    "heap-flags": "dist/src/boot/heap-flags.js",
    // Loaded by src/entry.ts before the child too: see src/boot/compile-cache.ts.
    "compile-cache": "dist/src/boot/compile-cache.js",
    "parse-worker": "dist/src/sessions/records/parse-worker.js",
    "split-worker": "dist/src/sessions/history/split-worker.js",
    "search-worker": "dist/src/agent/tools/search-worker.js",
    // The record parser and the search find their worker beside their own module, and with
    // code split into chunks (the turn engine is one, loaded on the first turn.start) esbuild
    // decides whether that module sits in stdio.js or in a chunk under chunks/: each worker is
    // in both places (each a few hundred bytes over the chunks they share).
    "chunks/parse-worker": "dist/src/sessions/records/parse-worker.js",
    "chunks/split-worker": "dist/src/sessions/history/split-worker.js",
    "chunks/search-worker": "dist/src/agent/tools/search-worker.js",
  },
  outdir: "dist/child",
  metafile: true,
});
// What each output file imports: test/boot/start-closure.test.ts reads the static closure of
// stdio.js from it. Beside dist/child, not in it (the package ships dist/child).
writeFileSync("dist/child-meta.json", JSON.stringify(child.metafile));

// `mc-agent acp` (docs/acp.md), the same engine behind the Agent Client Protocol, as a build of
// its own: in one build with the child, the code both share would move to a chunk under
// chunks/, and the record parser and search, which find their workers next to their own
// module ("./parse-worker.js"), would look for them there. Built alone, that code sits in
// dist/child/acp.js, beside the workers, as it sits in stdio.js.
await build({
  ...common,
  chunkNames: "chunks/acp-[name]-[hash]",
  entryPoints: { acp: "dist/src/acp/main.js" },
  outdir: "dist/child",
});

// Node 20 (no compile cache for ES modules): the child as one CommonJS script, which
// src/entry.ts compiles with V8's code cache (src/boot/code-cache.ts). No code splitting in
// CommonJS: each module the ES build puts in a lazy chunk is here in an init function of
// esbuild's (`__esm`, `__commonJS`), run by the `import()` that loads it, so it is run on first
// use as before, and with the cache never parsed until then (test/boot/start-closure.test.ts
// runs the bundle's top level and checks). One file, but for undici and the provider SDKs
// (vendorApart, above): the workers are found beside it ("./parse-worker.js", dist/child's own
// copies), each module in it once. The ACP agent is two files (acp-later-split.js).
const scriptOptions = {
  ...common,
  format: "cjs",
  splitting: false,
  // Every non-ASCII character of a string, template or regular expression escaped: what is left
  // is in comments (below), so the bundle is read as one-byte text.
  charset: "ascii",
  banner: { js: 'var __mcImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__mcImportMetaUrl" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
  write: false,
};
const scriptPlugins = [...common.plugins, vendorApart()];
const script = await build({
  ...scriptOptions,
  entryPoints: { stdio: "dist/src/server/stdio.js" },
  plugins: scriptPlugins,
});
// The ACP agent too (src/acp/start.ts), the same way, as two scripts: what its start runs, and
// what only an import() reaches (acp-later-split.js), each with its own code cache entry.
const acpFiles = await acpScripts(scriptOptions, scriptPlugins);
// The packages only a model call loads, each a CommonJS file of its own under vendor/: see
// vendorApart. The provider SDKs build every request's headers with the global `Headers`, and
// Node defines that global by loading its own copy of undici, a first use that took 30-70 ms of
// a fresh child's first model call (docs/benchmarks.md, "Targets of issue 44"): in their files
// `Headers` is the vendored undici's instead (vendor-headers.js), which that call has loaded
// already for its fetch.
const vendorFile = {
  ...common,
  format: "cjs",
  splitting: false,
  banner: {},
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
};
const vendorEntryPoints = (names) =>
  Object.fromEntries(names.map((name) => [`vendor/${vendorName(name)}`, `vendor-entry:${name}`]));
await build({
  ...vendorFile,
  entryPoints: vendorEntryPoints(["undici"]),
  plugins: [...common.plugins, vendorEntries(), cookiesOwnHeaders()],
});
await build({
  ...vendorFile,
  entryPoints: vendorEntryPoints(VENDOR.filter((name) => name !== "undici")),
  inject: ["scripts/vendor-headers.js"],
  plugins: [...common.plugins, vendorEntries(), undiciBeside()],
});
// The split open's worker (src/sessions/history/split-worker.ts) as one CommonJS file too, which
// the scripts start instead of the ES module ("./split-worker.js" and the 7 chunks it imports):
// a worker thread sets up the ES module loader of its own for an ES entry, 8-15 ms of the worker's
// start, which sits on the open's path (docs/store.md, "Opening a big history on two threads").
await build({
  ...common,
  format: "cjs",
  splitting: false,
  banner: scriptOptions.banner,
  define: scriptOptions.define,
  entryPoints: { "split-worker": "dist/src/sessions/history/split-worker.js" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
});
const SPLIT_WORKER_URL = 'new URL("./split-worker.js", __mcImportMetaUrl)';
if (!script.outputFiles.some((file) => file.text.includes(SPLIT_WORKER_URL)))
  throw new Error("stdio.cjs no longer starts the split open's worker as bundle.js expects");
for (const file of [...script.outputFiles, ...acpFiles]) {
  // Comments keep their text as it is: a `?` for each non-ASCII character of theirs.
  const text = file.text
    .replace(/[\u0080-\uffff]/g, "?")
    .replace(SPLIT_WORKER_URL, 'new URL("./split-worker.cjs", __mcImportMetaUrl)');
  // Written as CommonJS's module wrapper, the function code-cache.ts compiles and calls: a
  // wrapper added at load would make V8 copy the whole 4 MB source into a new string. Strict as
  // the ES build is everywhere (esbuild's own "use strict" comes after the banner, where it is
  // no longer a directive).
  const body = `(function (exports, require, module, __filename, __dirname) {"use strict";\n${text}\n})`;
  const hash = createHash("sha256").update(body).digest("hex");
  writeFileSync(file.path, `// mc-agent child bundle ${hash}\n${body}`);
}
// The code cache's loader, required by src/entry.ts (CommonJS: no ES module loader to set up).
await build({
  ...common,
  format: "cjs",
  splitting: false,
  banner: {},
  entryPoints: { "code-cache": "dist/src/boot/code-cache.js" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
});

// The process entry (src/entry.ts), which bin/mc-agent.js requires: CommonJS, as the starters
// and the loader it requires, so `mc-agent stdio` and `mc-agent acp` load no ES module before
// their first answer. It imports the CLI's ES module (dist/src/main.js) by a URL made at run
// time, which esbuild leaves as the `import()` it is.
await build({
  ...common,
  format: "cjs",
  splitting: false,
  banner: {},
  entryPoints: { entry: "dist/src/entry.js" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
});

// The starter (src/boot/starter.ts), required by src/entry.ts before the child: it answers
// an `initialize` the protocol's facts settle, without zod, then loads the child. The facts are
// read here from the tables themselves and inlined, so the starter loads none of them.
const { initializeFacts } = await import("../dist/src/boot/initialize-facts.js");
const starter = await build({
  ...common,
  format: "cjs",
  splitting: false,
  banner: {},
  define: { MC_INITIALIZE_FACTS: JSON.stringify(initializeFacts()) },
  entryPoints: { starter: "dist/src/boot/starter.js" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
  metafile: true,
});
// test/boot/fast-start.test.ts reads what it holds: none of zod, nor the tables.
writeFileSync("dist/starter-meta.json", JSON.stringify(starter.metafile));

// The ACP agent's starter (src/acp/starter.ts), required by src/entry.ts before the agent: it
// answers an editor's first `initialize` without the SDK or zod, then loads dist/child/acp.cjs
// (or acp.js). Its facts (the SDK's protocol version, the built-in providers) are read here from
// the SDK and the engine themselves and inlined, so it loads neither.
const { acpStarterFacts } = await import("../dist/src/acp/starter-facts.js");
const acpStarter = await build({
  ...common,
  format: "cjs",
  splitting: false,
  banner: {},
  define: { MC_ACP_STARTER_FACTS: JSON.stringify(acpStarterFacts()) },
  entryPoints: { "acp-starter": "dist/src/acp/starter.js" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
  metafile: true,
});
// test/acp/acp-starter.test.ts reads what it holds: neither zod nor the ACP SDK.
writeFileSync("dist/acp-starter-meta.json", JSON.stringify(acpStarter.metafile));

// What the starter requires, from beside itself, only for an initialize negotiating `turn`
// (src/server/turn-facts.ts): the sandbox's probe and git's availability, as the child finds them.
const turnFacts = await build({
  ...common,
  format: "cjs",
  splitting: false,
  banner: {},
  entryPoints: { "turn-facts": "dist/src/server/turn-facts.js" },
  outdir: "dist/child",
  outExtension: { ".js": ".cjs" },
  metafile: true,
});
writeFileSync("dist/turn-facts-meta.json", JSON.stringify(turnFacts.metafile));
