// `mc-agent acp`'s Node 20 scripts (scripts/bundle.js): the agent as two CommonJS scripts instead
// of one, dist/child/acp.cjs (what its start runs: the modules its entry reaches by static
// imports) and dist/child/acp-later.cjs (every module reached only through an `import()`: the
// turn engine, the MCP SDK, ajv, yaml, the revert, the prompt's part, ..., 1.3 MB of the 2.4 MB).
// One script held
// both, and each start read all of it, deserialised the code cache's record of every one of its
// top-level functions and made a closure of each, for code that only a prompt runs
// (docs/benchmarks.md, "Targets of issue 44"). Each script is compiled with its own code cache
// entry (src/boot/code-cache.ts); the later one is loaded at the first `import()` that needs it,
// which the agent makes once a session's answer is written (src/acp/prompt-part-load.ts), so a prompt
// finds it loaded or waits for it as for any `import()`.
//
// Every module is in one of the two scripts once, so no state is ever held twice: a module of
// the later script that imports one of the start's gets the start's own (the exports it takes,
// as getters, read through the registry below), and the start's `import()` of a later module gets
// the later script's (through a stub that loads it). esbuild's ES module build (Node 22 and 24)
// splits the same way by itself (chunks/), so it is left as it is.
import { build } from "esbuild";
import ts from "typescript";

/** Where the start's modules are found by the later script: a symbol of the global registry. */
const REGISTRY = 'Symbol.for("mc-agent.acp.shared")';

/** A module's key, the same in both scripts: its path from the package's root (a metafile's). */
const keyOf = (path) => path.replace(`${process.cwd()}/`, "");

/**
 * The two scripts' output files (write: false). `options` are the CommonJS build's (format,
 * charset, banner, define, ...); `plugins` its plugins, before which no import is resolved here.
 */
export async function acpScripts(options, plugins) {
  const entry = "dist/src/acp/start.js";
  // 1. The start's static closure: every import() left out, each one's target noted.
  const targets = new Map();
  const start = await build({
    ...options,
    entryPoints: { acp: entry },
    metafile: true,
    write: false,
    plugins: [...plugins, dynamicTargets(targets)],
  });
  const inStart = new Map(
    Object.entries(start.metafile.inputs).map(([path, input]) => [path, input.format]),
  );
  const later = [...targets.keys()].filter((key) => !inStart.has(key));
  // 2. The later script: each target's exports on demand; the start's modules from the registry.
  const shared = new Map();
  const laterBuild = await build({
    ...options,
    entryPoints: { "acp-later": "mc-acp-later-entry" },
    metafile: true,
    write: false,
    plugins: [...plugins, laterEntry(later), fromStart(inStart, shared)],
  });
  const names = await namesTaken(options, plugins, later, shared);
  const laterFormats = new Map(
    later.map((key) => [key, laterBuild.metafile.inputs[key]?.format ?? "esm"]),
  );
  // 3. The start again, now with the registry of what the later script takes from it, and each
  // import() of a later module through the loader.
  const final = await build({
    ...options,
    entryPoints: { acp: entry },
    write: false,
    plugins: [...plugins, registry(entry, shared, names), laterImports(laterFormats)],
  });
  return [...final.outputFiles, ...laterBuild.outputFiles];
}

/**
 * What the later script takes of each ES module of the start's: its names, or null for the
 * whole namespace (an `import *`, a `require`, an `import()`). Read from the later script built
 * as an ES module with those modules left external, whose imports then name what is used: the
 * registry gives each module only those, not a namespace object of every export (zod's 260),
 * which the start would make at every load, a getter per name.
 */
async function namesTaken(options, plugins, later, shared) {
  const external = {
    name: "acp-start-external",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.namespace !== "file") return undefined;
        const target = await resolved(b, args);
        const key = target && keyOf(target.path);
        return key && shared.has(key) ? { path: key, external: true } : undefined;
      });
    },
  };
  const probe = await build({
    ...options,
    format: "esm",
    banner: {},
    entryPoints: { "acp-later": "mc-acp-later-entry" },
    write: false,
    plugins: [...plugins, laterEntry(later), external],
  });
  const text = probe.outputFiles[0].text;
  const source = ts.createSourceFile("later.js", text, ts.ScriptTarget.Latest);
  const names = new Map();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const key = statement.moduleSpecifier.text;
    if (!shared.has(key) || names.get(key) === null) continue;
    const clause = statement.importClause;
    const taken = names.get(key) ?? new Set();
    if (clause?.name) taken.add("default");
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) {
      names.set(key, null);
      continue;
    }
    for (const element of bindings?.elements ?? [])
      taken.add((element.propertyName ?? element.name).text);
    names.set(key, taken);
  }
  for (const key of shared.keys()) {
    const whole = text.includes(`require("${key}")`) || text.includes(`import("${key}")`);
    const taken = names.get(key);
    if (whole || !taken || [...taken].some((n) => !/^[A-Za-z_$][\w$]*$/.test(n)))
      names.set(key, null);
  }
  return names;
}

/** Resolves an import as esbuild would without this plugin (guarded against itself). */
async function resolved(b, args) {
  if (args.pluginData?.mcAcpSplit) return undefined;
  const result = await b.resolve(args.path, {
    kind: args.kind,
    importer: args.importer,
    resolveDir: args.resolveDir,
    pluginData: { mcAcpSplit: true },
  });
  return result.errors.length > 0 || result.external || result.namespace !== "file"
    ? undefined
    : result;
}

/** Pass 1: each `import()` external, its resolved target noted (a file of ours or a package's). */
function dynamicTargets(targets) {
  return {
    name: "acp-dynamic-targets",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const target = await resolved(b, args);
        if (target === undefined) return undefined;
        targets.set(keyOf(target.path), target.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/** The later script's entry: each target's module on demand (a `require` runs its init once). */
function laterEntry(later) {
  return {
    name: "acp-later-entry",
    setup(b) {
      b.onResolve({ filter: /^mc-acp-later-entry$/ }, () => ({
        path: "entry",
        namespace: "acp-later-entry",
      }));
      b.onLoad({ filter: /.*/, namespace: "acp-later-entry" }, () => ({
        contents: `module.exports = {\n${later
          .map((key) => `  ${JSON.stringify(key)}: () => require(${JSON.stringify(`./${key}`)}),`)
          .join("\n")}\n};`,
        resolveDir: process.cwd(),
        loader: "js",
      }));
    },
  };
}

/**
 * The later script: an import of a module the start holds is that module, read from the
 * registry. A CommonJS module's `module.exports` as it is; an ES module's exports as getters on
 * an object marked `__esModule`, re-exported by an ES module stub (outside the package, so
 * esbuild's interop takes that object's `default` as the module's own, as vendorApart's stubs).
 */
function fromStart(inStart, shared) {
  const holder = (key, format) =>
    format === "cjs"
      ? `module.exports = globalThis[${REGISTRY}].cjs[${JSON.stringify(key)}]();`
      : `const ns = globalThis[${REGISTRY}].esm[${JSON.stringify(key)}];
const out = Object.defineProperty({}, "__esModule", { value: true });
for (const name of Object.keys(ns)) Object.defineProperty(out, name, { get: () => ns[name], enumerable: true });
module.exports = out;`;
  return {
    name: "acp-from-start",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.namespace !== "file") return undefined;
        const target = await resolved(b, args);
        if (target === undefined) return undefined;
        const key = keyOf(target.path);
        const format = inStart.get(key);
        if (format === undefined) return undefined;
        shared.set(key, format);
        return { path: key, namespace: format === "cjs" ? "acp-start-holder" : "acp-from-start" };
      });
      throughHolder(b, "acp-from-start", "acp-start-holder", (path) => ({
        contents: holder(path, shared.get(path)),
      }));
    },
  };
}

/**
 * An ES module in namespace `stub` that re-exports, default included, the CommonJS module in
 * namespace `holder` for the same path, whose source `load(path)` gives (fromStart's and
 * laterImports's: the holder's `module.exports` becomes the ES module's exports).
 */
function throughHolder(b, stub, holder, load) {
  const prefix = `${holder}:`;
  b.onResolve({ filter: new RegExp(`^${prefix}`) }, (args) => ({
    path: args.path.slice(prefix.length),
    namespace: holder,
  }));
  b.onLoad({ filter: /.*/, namespace: stub }, (args) => ({
    contents: `export * from "${prefix}${args.path}"; export { default } from "${prefix}${args.path}";`,
    loader: "js",
  }));
  b.onLoad({ filter: /.*/, namespace: holder }, (args) => ({ ...load(args.path), loader: "js" }));
}

/**
 * The start: the registry of the modules the later script takes from it, imported at the end of
 * its entry (after every module it holds has run). An ES module by its namespace; a CommonJS one
 * by a function that requires it (its `module.exports` as it is, its init run once either way).
 */
function registry(entry, shared, names) {
  const esm = [...shared].filter(([, format]) => format !== "cjs").map(([key]) => key);
  const cjs = [...shared].filter(([, format]) => format === "cjs").map(([key]) => key);
  const from = (key) => JSON.stringify(`./${key}`);
  const imports = esm.map((key, i) => {
    const taken = names.get(key);
    if (taken === null || taken === undefined) return `import * as m${i} from ${from(key)};`;
    return `import { ${[...taken].map((name) => `${name} as m${i}_${name}`).join(", ")} } from ${from(key)};`;
  });
  const entries = esm.map((key, i) => {
    const taken = names.get(key);
    if (taken === null || taken === undefined) return `${JSON.stringify(key)}: m${i}`;
    const getters = [...taken].map((name) => `get ${name}() { return m${i}_${name}; }`);
    return `${JSON.stringify(key)}: { ${getters.join(", ")} }`;
  });
  return {
    name: "acp-registry",
    setup(b) {
      b.onLoad({ filter: /[\\/]dist[\\/]src[\\/]acp[\\/]start\.js$/ }, async (args) => {
        if (keyOf(args.path) !== entry) return undefined;
        const { readFile } = await import("node:fs/promises");
        const text = await readFile(args.path, "utf8");
        return { contents: `${text}\nimport "mc-acp-registry";\n`, loader: "js" };
      });
      b.onResolve({ filter: /^mc-acp-registry(-cjs)?$/ }, (args) => ({
        path: args.path,
        namespace: "acp-registry",
      }));
      b.onLoad({ filter: /^mc-acp-registry$/, namespace: "acp-registry" }, () => ({
        contents: `${imports.join("\n")}
import cjs from "mc-acp-registry-cjs";
globalThis[${REGISTRY}] = { esm: { ${entries.join(", ")} }, cjs };`,
        resolveDir: process.cwd(),
        loader: "js",
      }));
      b.onLoad({ filter: /^mc-acp-registry-cjs$/, namespace: "acp-registry" }, () => ({
        contents: `module.exports = { ${cjs.map((key) => `${JSON.stringify(key)}: () => require(${JSON.stringify(`./${key}`)})`).join(", ")} };`,
        resolveDir: process.cwd(),
        loader: "js",
      }));
    },
  };
}

/**
 * The start's `import()` of a later module: what the later script's entry gives for it, loaded
 * through the code cache by src/boot/later-script.ts on the first such import. A CommonJS
 * module's `module.exports` as it is, so the importer's interop is the one it had; an ES
 * module's re-exported by a stub (as fromStart's).
 */
function laterImports(later) {
  return {
    name: "acp-later-imports",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const target = await resolved(b, args);
        const format = target && later.get(keyOf(target.path));
        if (format === undefined) return undefined;
        const path = keyOf(target.path);
        return { path, namespace: format === "cjs" ? "acp-later-holder" : "acp-later" };
      });
      throughHolder(b, "acp-later", "acp-later-holder", (path) => ({
        contents: `module.exports = require("./dist/src/boot/later-script.js").laterModule(${JSON.stringify(path)});`,
        resolveDir: process.cwd(),
      }));
    },
  };
}
