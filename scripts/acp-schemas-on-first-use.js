// The ACP SDK's schemas built on first use, in the bundles of `mc-agent acp` (scripts/bundle.js).
// The SDK's generated module (@agentclientprotocol/sdk dist/v1/schema/zod.gen.js) builds all of
// its 178 zod schemas when it is evaluated: half of the ACP bundle's top level, which every
// editor's start runs before its `session/new` can be read (docs/benchmarks.md, "Targets of
// issue 44"), for schemas of which a start parses two or three. Here each exported schema is
// wrapped in zod's own `z.lazy`, which builds it the first time a value is parsed with it and
// delegates every parse to it from then on (the same issues, the same output); the schemas that
// refer to it hold the lazy one. Each is built without zod's compiled fast path (WITHOUT_JIT).
// The module's text is otherwise left as it is.
//
// The rewrite is checked, not assumed: it fails the build when the module is not what it was
// written for (no `z` namespace, a statement of another kind, a schema used in another schema by
// anything but a method every zod type has, which a lazy one has too). The SDK's other modules
// only parse with the schemas and call `.and()` on a few (guards.gen.js), whose own schemas
// (`guardsOnFirstUse`) are built on first use the same way.
// test/acp/acp-schemas-lazy.test.ts parses ACP messages with both modules and compares.
import ts from "typescript";

/** Where the SDK's v1 schemas are: the one module this rewrites. */
export const ACP_SCHEMAS_MODULE =
  /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]schema[\\/]zod\.gen\.js$/;

/**
 * What a lazy schema has as any zod type has it (ZodType's methods): a schema may be used in
 * another's construction through these only. Object-only ones (`shape`, `extend`, `pick`, ...)
 * would not be there on a lazy wrapper.
 */
const TYPE_METHODS = new Set(["and", "or", "nullish", "nullable", "optional", "array", "catch"]);

/**
 * The module's text with each exported `zName` schema built on first use; throws when the module
 * is not one this can rewrite without changing what it parses.
 */
export function schemasOnFirstUse(text, file = "zod.gen.js") {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const fail = (why) => {
    throw new Error(`${file}: cannot build its schemas on first use: ${why}`);
  };
  const names = new Set();
  const edits = [];
  let zodNamespace = false;
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (
        statement.moduleSpecifier.text === "zod/v4" &&
        bindings &&
        ts.isNamespaceImport(bindings) &&
        bindings.name.text === "z"
      )
        zodNamespace = true;
      continue;
    }
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const constant = ts.isVariableStatement(statement)
      ? (statement.declarationList.flags & ts.NodeFlags.Const) !== 0
      : false;
    if (!exported || !constant)
      fail(`a statement other than an exported const at ${where(statement)}`);
    for (const declaration of statement.declarationList.declarations) {
      const name = ts.isIdentifier(declaration.name) ? declaration.name.text : "";
      if (!/^z[A-Z]/.test(name) || !declaration.initializer)
        fail(`an export that is no schema at ${where(declaration)}`);
      names.add(name);
      edits.push(declaration.initializer);
    }
  }
  if (!zodNamespace) fail('no `import * as z from "zod/v4"`');
  if (names.size === 0) fail("no schema");
  const visit = (node) => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      names.has(node.expression.text) &&
      !TYPE_METHODS.has(node.name.text)
    )
      fail(`${node.expression.text}.${node.name.text} at ${where(node)}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (text.includes(WITHOUT_JIT)) fail(`a name of its own is ${WITHOUT_JIT}`);
  let out = text;
  for (const initializer of edits.reverse()) {
    const start = initializer.getStart(source);
    const body = text.slice(start, initializer.end);
    out = `${out.slice(0, start)}/* @__PURE__ */ z.lazy(() => ${WITHOUT_JIT}(() => (${body})))${out.slice(initializer.end)}`;
  }
  // The helper after the imports, before every schema (the edits are all past it).
  const imports = source.statements.filter((statement) => ts.isImportDeclaration(statement));
  const at = imports.at(-1)?.end ?? 0;
  out = `${out.slice(0, at)}\n${WITHOUT_JIT_HELPER}${out.slice(at)}`;
  return { text: out, schemas: names.size };

  function where(node) {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    return `line ${line + 1}`;
  }
}

/**
 * What builds each schema: with zod's `jitless` setting on while it is built. zod compiles an
 * object schema's fast path (a function made by `new Function`, which V8's code cache cannot
 * keep) at its first parse unless it was built jitless; the agent parses a few messages of each
 * kind an editor sends (an initialize, a session/new, its prompts), so that compile was half a
 * millisecond of session/new's own parse at every start, and a jitless parse checks exactly the
 * same (src/protocol/first-parse.ts says the same of ours). Set back as it was once built.
 */
const WITHOUT_JIT = "builtWithoutJit$mc";
const WITHOUT_JIT_HELPER = `function ${WITHOUT_JIT}(build) {
  const config = z.config();
  const jitless = config.jitless;
  config.jitless = true;
  try {
    return build();
  } finally {
    config.jitless = jitless;
  }
}
`;

/** Where the SDK's type guards are: 14 schemas built from the others with `.and()`. */
export const ACP_GUARDS_MODULE =
  /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]schema[\\/]guards\.gen\.js$/;

/**
 * The SDK's guards module with each of its `zGuardName` schemas built on first use too: its
 * top level built them all (intersections of the lazy schemas above, a millisecond of every
 * start) for guards of elicitations, which the agent never checks. Each is only ever used by
 * `.safeParse(...)` in a guard function, which a lazy schema has too; anything else fails the
 * build.
 */
export function guardsOnFirstUse(text, file = "guards.gen.js") {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const fail = (why) => {
    throw new Error(`${file}: cannot build its guards' schemas on first use: ${why}`);
  };
  const names = new Set();
  const edits = [];
  let zodNamespace = false;
  for (const statement of source.statements) {
    const bindings = ts.isImportDeclaration(statement) && statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && bindings.name.text === "z")
      zodNamespace = statement.moduleSpecifier.text === "zod/v4";
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const name = ts.isIdentifier(declaration.name) ? declaration.name.text : "";
      if (!name.startsWith("zGuard")) continue;
      const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (exported || !declaration.initializer) fail(`${name} at ${where(declaration)}`);
      names.add(name);
      edits.push(declaration.initializer);
    }
  }
  if (!zodNamespace) fail('no `import * as z from "zod/v4"`');
  if (names.size === 0) fail("no guard schema");
  const visit = (node) => {
    if (ts.isIdentifier(node) && names.has(node.text)) {
      const declared = ts.isVariableDeclaration(node.parent) && node.parent.name === node;
      const parsed =
        ts.isPropertyAccessExpression(node.parent) &&
        node.parent.expression === node &&
        node.parent.name.text === "safeParse";
      if (!declared && !parsed) fail(`${node.text} used at ${where(node)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = text;
  for (const initializer of edits.reverse()) {
    const start = initializer.getStart(source);
    const body = text.slice(start, initializer.end);
    out = `${out.slice(0, start)}/* @__PURE__ */ z.lazy(() => (${body}))${out.slice(initializer.end)}`;
  }
  return { text: out, schemas: names.size };

  function where(node) {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    return `line ${line + 1}`;
  }
}

/** The esbuild plugin: the SDK's schemas and guards modules, rewritten; every other as it is. */
export function acpSchemasOnFirstUse() {
  return {
    name: "acp-schemas-on-first-use",
    setup(b) {
      b.onLoad({ filter: ACP_SCHEMAS_MODULE }, async (args) => {
        const { readFile } = await import("node:fs/promises");
        const { text } = schemasOnFirstUse(await readFile(args.path, "utf8"), args.path);
        return { contents: text, loader: "js" };
      });
      b.onLoad({ filter: ACP_GUARDS_MODULE }, async (args) => {
        const { readFile } = await import("node:fs/promises");
        const { text } = guardsOnFirstUse(await readFile(args.path, "utf8"), args.path);
        return { contents: text, loader: "js" };
      });
    },
  };
}
