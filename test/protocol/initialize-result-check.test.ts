import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { DISCOVER_EXTENSION, LIMITS, REFRESH_EXTENSION } from "../../src/protocol/constants.js";
import { isBuilt } from "../../src/protocol/lazy.js";
import { checkInitializeResult } from "../../src/protocol/schemas/initialize-check.js";
import { InitializeResult } from "../../src/protocol/schemas/lifecycle.js";
import { TURN_EXTENSION } from "../../src/protocol/schemas/turns.js";
import { Outbound } from "../../src/server/outbound.js";
import type { ServerState } from "../../src/server/state.js";

/**
 * The fast initialize check (src/protocol/schemas/initialize-check.ts) against the schema:
 * whatever it accepts the schema accepts, parsed to the same value and the same JSON (the
 * answer's bytes); every plain result the schema accepts it accepts too (else the fast path
 * would be no path). And the child's writer answers an `initialize` without building the
 * schema (it was built for every engine's initialize before).
 */

/** An ACP engine's initialize result (the shape `mc-agent acp`'s in-process engine gives). */
const ACP_RESULT = {
  protocol_version: 1,
  server: { name: "mc-agent", version: "0.1.0" },
  capabilities: ["errors.recovery", "model.catalog", "session.create", "turn", "workspace.trust"],
  limits: { ...LIMITS },
  extensions: {
    turn: {
      ...TURN_EXTENSION,
      sandbox: "bubblewrap",
      checkpoints: { available: true, reason: null },
    },
  },
};

/** Every extension, as a stdio child negotiating them all answers. */
const FULL_RESULT = {
  ...ACP_RESULT,
  extensions: {
    "session.discover": { ...DISCOVER_EXTENSION },
    "model.refresh": { ...REFRESH_EXTENSION },
    turn: { ...TURN_EXTENSION, sandbox: null },
  },
};

const clone = <T>(value: T): T => structuredClone(value);

function agrees(value: unknown): void {
  const fast = checkInitializeResult(value);
  const parsed = InitializeResult().safeParse(value);
  const shown = JSON.stringify(value) ?? String(value);
  if (fast !== null) {
    assert.ok(parsed.success, `fast accepted what the schema refuses: ${shown}`);
    assert.deepEqual(fast, parsed.data);
    assert.equal(JSON.stringify(fast), JSON.stringify(parsed.data));
  } else {
    // It leaves to the schema one case it could take: an optional key present as undefined.
    assert.ok(!parsed.success || holdsUndefined(value), `fast refused a valid result: ${shown}`);
  }
}

/** Whether an object in `value` has an own key whose value is undefined. */
function holdsUndefined(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(([, member]) => member === undefined || holdsUndefined(member));
}

/** Values put anywhere in a result: valid ones for some places, wrong ones for every place. */
const ODD = [
  undefined,
  null,
  0,
  -1,
  1,
  1.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  "x",
  "1",
  true,
  false,
  [],
  ["x"],
  [1],
  {},
  { extra: 1 },
  "bubblewrap",
  "seatbelt",
  "git_missing",
  "workspace_in_store",
  "read_only",
  "shell",
  "deny_always",
  "provisional_until_complete",
  "directory",
  "unchanged",
  { available: false, reason: "git_missing" },
  { available: true, reason: "nope" },
  { rule_text_bytes: 1, rules_per_workspace: 2, path_glob_bytes: 3 },
  ["read_only", "ask"],
  ["shell", "nope"],
  ["allow_once"],
  // A hole (a sparse array): both refuse it.
  Object.assign(new Array(2), { 1: "ask" }),
];

/** Every path to a member (objects and arrays) in `value`. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [at, ...value.flatMap((item, i) => paths(item, [...at, i]))];
  if (typeof value === "object" && value !== null)
    return [at, ...Object.entries(value).flatMap(([key, item]) => paths(item, [...at, key]))];
  return [at];
}

type Edit =
  | { kind: "set"; path: number; key: string; odd: number }
  | { kind: "delete"; path: number }
  | { kind: "reverse"; path: number };

/** `value` with one edit made at one of its paths (a key set or added, a member deleted, keys reversed). */
function edited(base: unknown, edit: Edit): unknown {
  const value = clone(base) as Record<string, unknown>;
  const all = paths(value);
  const path = all[edit.path % all.length] ?? [];
  let parent: Record<string | number, unknown> | null = null;
  let node: unknown = value;
  for (const step of path) {
    parent = node as Record<string | number, unknown>;
    node = parent[step];
  }
  const last = path[path.length - 1];
  if (edit.kind === "delete") {
    if (parent === null || last === undefined) return value;
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return value;
  }
  if (typeof node !== "object" || node === null) {
    if (parent !== null && last !== undefined)
      parent[last] = ODD[edit.kind === "set" ? edit.odd % ODD.length : 0];
    return value;
  }
  if (edit.kind === "reverse") {
    if (Array.isArray(node)) node.reverse();
    else {
      const entries = Object.entries(node).reverse();
      for (const key of Object.keys(node)) delete (node as Record<string, unknown>)[key];
      Object.assign(node, Object.fromEntries(entries));
    }
    return value;
  }
  (node as Record<string, unknown>)[Array.isArray(node) ? String(edit.path % 4) : edit.key] =
    ODD[edit.odd % ODD.length];
  return value;
}

const KEYS = fc.constantFrom(
  "extra",
  "sandbox",
  "decisions",
  "rules",
  "checkpoints",
  "reason",
  "available",
  "turn",
  "session.discover",
  "model.refresh",
  "frame_bytes",
  "name",
  "protocol_version",
);

const EDIT: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant("set" as const),
    path: fc.nat(),
    key: KEYS,
    odd: fc.nat(),
  }),
  fc.record({ kind: fc.constant("delete" as const), path: fc.nat() }),
  fc.record({ kind: fc.constant("reverse" as const), path: fc.nat() }),
);

describe("the fast initialize check agrees with the InitializeResult schema", () => {
  test("the writer answers an initialize without building the schema, the same bytes", () => {
    assert.equal(isBuilt(InitializeResult), false, "built before the test");
    const lines: string[] = [];
    const outbound = new Outbound(async (line) => {
      lines.push(line);
    }, {} as ServerState);
    outbound.result("r1", "initialize", clone(ACP_RESULT));
    assert.equal(isBuilt(InitializeResult), false, "the schema was built");
    // The line the schema's parse gave before: its value in the schema's key order.
    const parsed = InitializeResult().parse(clone(ACP_RESULT));
    assert.deepEqual(lines, [`${JSON.stringify({ id: "r1", result: parsed })}\n`]);
  });

  test("valid results are accepted, rebuilt in the schema's key order", () => {
    for (const value of [ACP_RESULT, FULL_RESULT]) {
      assert.notEqual(checkInitializeResult(value), null, JSON.stringify(value));
      agrees(value);
      const reordered = edited(value, { kind: "reverse", path: 0 });
      agrees(reordered);
      assert.equal(
        JSON.stringify(checkInitializeResult(reordered)),
        JSON.stringify(checkInitializeResult(value)),
      );
    }
  });

  test("an invalid result is left to the schema, which refuses it: the writer's internal_error", () => {
    const lines: string[] = [];
    const outbound = new Outbound(async (line) => {
      lines.push(line);
    }, {} as ServerState);
    outbound.result("r2", "initialize", { ...clone(ACP_RESULT), limits: { frame_bytes: 1.5 } });
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? "", /"internal_error"/);
  });

  test("one or two edits anywhere: the same verdict and value as the schema's", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(ACP_RESULT, FULL_RESULT),
        fc.array(EDIT, { minLength: 1, maxLength: 2 }),
        (base, edits) => {
          let value: unknown = base;
          for (const edit of edits) value = edited(value, edit);
          agrees(value);
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("what is no plain object is left to the schema", () => {
    for (const value of [null, [], "x", 1, Object.assign(Object.create(null), clone(ACP_RESULT))])
      if (checkInitializeResult(value) !== null) agrees(value);
    assert.equal(checkInitializeResult([]), null);
  });
});
