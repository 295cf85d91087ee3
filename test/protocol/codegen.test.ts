/**
 * docs/codegen.md's promise, checked with the real generator: quicktype (a dev dependency) turns
 * docs/protocol.schema.json into TypeScript, Python, Rust and Swift with one named type per object and
 * no free-form type except the documented ones, and the generated Python decodes and round-trips
 * a recorded transcript of real child frames (test/golden/protocol-transcript.jsonl, re-recorded
 * by `npm run transcript`) that holds every method, notification and turn event of the schema.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PACKAGE_ROOT } from "../helpers/child.js";

type Def = Record<string, unknown>;
const SCHEMA_PATH = join(PACKAGE_ROOT, "docs", "protocol.schema.json");
const TRANSCRIPT_PATH = join(PACKAGE_ROOT, "test", "golden", "protocol-transcript.jsonl");
const QUICKTYPE = join(PACKAGE_ROOT, "node_modules", "quicktype", "dist", "index.js");
const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as {
  $defs: Record<string, Def>;
  methods: Record<string, unknown>;
  notifications: Record<string, unknown>;
};
const defs = schema.$defs;

/**
 * The deliberate free-form members (docs/codegen.md), as `Type.field`: a tool call's `input` is
 * the model's raw JSON arguments (any JSON); a history record is an open object whose unknown
 * fields are kept (`SessionEvent`, in `SessionHistoryResult.events` and
 * `SessionSubagentHistoryResult.events`). Rust also has no type for
 * a member that is always null (`error` of a completed or interrupted turn, `stop_reason` of a
 * failed one), so serde_json::Value stands for it there. `TurnEvent` and `TurnStartResult` are
 * quicktype's fold of their unions.
 */
const FREE_FORM = [
  "ToolCallEvent.input",
  "TurnEvent.input",
  "InnerTurnEventBody.input",
  "Event.input",
  "SessionHistoryResult.events",
  "SessionSubagentHistoryResult.events",
];
const RUST_NULL_ONLY = [
  "TurnCompletedResult.error",
  "TurnInterruptedResult.error",
  "TurnFailedResult.stop_reason",
];

/** quicktype's names for types it could not name from the schema (`PurpleCode`, ...). */
const MADE_UP =
  /^(Purple|Fluffy|Tentacled|Sticky|Indigo|Indecent|Hilarious|Ambitious|Cunning|Magenta|Frisky|Mischievous|Braggadocious)/;

let dir = "";
const generated: Record<string, string> = {};

function quicktype(lang: string, out: string): string {
  const path = join(dir, out);
  execFileSync(
    process.execPath,
    [QUICKTYPE, "--src-lang", "schema", "--lang", lang, "-o", path, `${SCHEMA_PATH}#/$defs/`],
    { stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 },
  );
  return readFileSync(path, "utf8");
}

/** A def without its names and prose: two equal ones are one type to quicktype. */
const shape = (def: Def) => JSON.stringify({ ...def, title: undefined, description: undefined });

/** The defs a generator must emit as a type of that name: objects, unions and enums. */
function typeDefs(): string[] {
  const firsts = new Map<string, string>();
  const named: string[] = [];
  for (const [name, def] of Object.entries(defs)) {
    const isType = def.type === "object" || def.oneOf || def.anyOf || def.enum;
    if (!isType || (def.type === "object" && !def.properties)) continue;
    // quicktype folds structurally equal types into the first (e.g. ShutdownParams, StatusParams).
    if (firsts.has(shape(def))) continue;
    firsts.set(shape(def), name);
    named.push(name);
  }
  return named;
}

/** `Type.field` of every field whose declared type matches `pattern`, in one language. */
function fieldsTyped(text: string, typeStart: RegExp, field: RegExp, pattern: RegExp): string[] {
  const found: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    const opened = typeStart.exec(line);
    if (opened) current = opened[1] as string;
    const member = field.exec(line);
    if (member && current && pattern.test(member[2] as string))
      found.push(`${current}.${member[1]}`);
  }
  return found.sort();
}

describe("codegen: quicktype on docs/protocol.schema.json", () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mc-codegen-"));
    generated.typescript = quicktype("typescript", "protocol.ts");
    generated.python = quicktype("python", "protocol.py");
    generated.rust = quicktype("rust", "protocol.rs");
    generated.swift = quicktype("swift", "Protocol.swift");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("every object, union and enum is one type of its own schema name, in each language", () => {
    const names = {
      typescript: /^export (?:interface|type|enum) (\w+)/gm,
      python: /^class (\w+)/gm,
      rust: /^pub (?:struct|enum|type) (\w+)/gm,
      swift: /^(?:struct|enum|typealias|class) (\w+)/gm,
    };
    for (const [lang, pattern] of Object.entries(names)) {
      const emitted = new Set([...(generated[lang] as string).matchAll(pattern)].map((m) => m[1]));
      const missing = typeDefs().filter((name) => !emitted.has(name));
      assert.deepEqual(missing, [], `${lang}: schema types quicktype did not emit by name`);
      const madeUp = [...emitted].filter((name) => MADE_UP.test(name as string));
      assert.deepEqual(madeUp, [], `${lang}: names quicktype made up`);
    }
    for (const name of ["SessionEntry", "TurnStartParams", "MessageDeltaEvent", "ErrorCode"])
      assert.ok(typeDefs().includes(name), name);
  });

  test("no protocol object is Any / unknown / serde_json::Value but the documented ones", () => {
    const ts = fieldsTyped(
      generated.typescript as string,
      /^export interface (\w+)/,
      /^ {4}(\w+)\??:\s+(.+);$/,
      /\bunknown\b|\bany\b/,
    );
    assert.deepEqual(ts, [...FREE_FORM].sort(), "typescript");
    assert.doesNotMatch(generated.typescript as string, /^export type \w+ = (unknown|any)/m);
    const py = fieldsTyped(
      generated.python as string,
      /^class (\w+)/,
      /^ {4}(\w+): ([^=(]+?)(?: = .*)?$/,
      /\bAny\b/,
    );
    assert.deepEqual(py, [...FREE_FORM].sort(), "python");
    const rust = fieldsTyped(
      generated.rust as string,
      /^pub struct (\w+)/,
      /^ {4}pub (\w+): (.+),$/,
      /serde_json::Value/,
    );
    assert.deepEqual(rust, [...FREE_FORM, ...RUST_NULL_ONLY].sort(), "rust");
    // The open history record, and nothing else, is a map of free JSON.
    const aliases = [...(generated.rust as string).matchAll(/^pub type (\w+) = .*Value.*;$/gm)];
    assert.deepEqual(
      aliases.map((m) => m[1]),
      ["SessionEvent"],
    );
    assert.doesNotMatch(generated.typescript as string, /JSONAny/);
    const swift = fieldsTyped(
      generated.swift as string,
      /^struct (\w+)/,
      /^ {4}let (\w+): (.+)$/,
      /JSONAny/,
    );
    assert.deepEqual(swift, [...FREE_FORM].sort(), "swift");
  });

  test("the generated Python decodes and round-trips every recorded frame", (t) => {
    const out = execFileSync(
      "python3",
      [
        join(PACKAGE_ROOT, "test", "protocol", "transcript_roundtrip.py"),
        dir,
        SCHEMA_PATH,
        TRANSCRIPT_PATH,
      ],
      { encoding: "utf8", timeout: 120_000 },
    );
    const report = JSON.parse(out.trim().split("\n").pop() as string) as {
      decoded: Record<string, number>;
      variants: string[];
      rejected: number;
      frames: number;
      validated: number | null;
    };
    // The frame types by the schema's own index (a few bases are not the method's pascal case).
    type Entry = Record<string, { $ref: string }>;
    const refName = (entry: unknown, key: string) =>
      ((entry as Entry)[key]?.$ref ?? "").replace("#/$defs/", "");
    const missing = [
      ...Object.values(schema.methods).flatMap((m) => [
        refName(m, "request"),
        refName(m, "response"),
      ]),
      ...Object.values(schema.notifications).map((n) => refName(n, "notification")),
      "ErrorResponse",
    ].filter((name) => !report.decoded[name]);
    assert.deepEqual(missing, [], "frame types the transcript lacks (npm run transcript)");
    assert.ok(report.rejected >= 1, "a frame the child rejected fails to decode too");
    if (report.validated === null) {
      t.diagnostic("python3 has no jsonschema package: the frames were decoded but not validated");
    } else {
      assert.equal(report.validated, report.frames, "every frame was checked against the schema");
    }
    for (const union of recordedUnions()) {
      const mapping = (defs[union] as { discriminator: { mapping: Record<string, string> } })
        .discriminator.mapping;
      const lacking = Object.values(mapping)
        .map((ref) => `${union}:${ref.split("/").pop()}`)
        .filter((variant) => !report.variants.includes(variant));
      assert.deepEqual(lacking, [], `${union} variants the transcript lacks (npm run transcript)`);
    }
    for (const union of ["TurnEvent", "TurnStartResult"])
      assert.ok(recordedUnions().includes(union));
  });
});

const refName = (node: unknown) =>
  ((node as { $ref?: string } | undefined)?.$ref ?? "").split("/").pop() as string;

/**
 * The unions whose every variant the transcript must hold: each notification's union members
 * (the turn event types) and each method's result when it is a union (the turn statuses).
 * Unions nested deeper (a catalog notice's kinds) are the business of their own tests.
 */
function recordedUnions(): string[] {
  const methods = Object.values(schema.methods) as { result: unknown }[];
  const notes = Object.values(schema.notifications) as { params: unknown }[];
  const members = notes.flatMap((note) =>
    Object.values((defs[refName(note.params)]?.properties ?? {}) as Record<string, unknown>),
  );
  const names = [...methods.map((method) => method.result), ...members].map(refName);
  return [...new Set(names)].filter((name) => defs[name]?.discriminator);
}
