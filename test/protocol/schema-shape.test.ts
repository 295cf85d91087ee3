/**
 * The shape docs/codegen.md promises of the generated schema, checked on buildProtocolSchema()
 * itself (generator-independent): every object and enum is a named `$defs` entry and nothing
 * is inlined, every `$ref` resolves, each method has its request with `method` a const, and the
 * turn events are a discriminated `oneOf` with every field of the zod schema.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildProtocolSchema } from "../../src/protocol/json-schema.js";
import { PUBLIC_METHOD_NAMES } from "../../src/protocol/methods.js";
import { methodBase } from "../../src/protocol/schema-names.js";
import { TurnEventBody } from "../../src/protocol/schemas/turns.js";

type Node = Record<string, unknown>;
const schema = buildProtocolSchema() as { $defs: Record<string, Node>; anyOf: Node[] };
const defs = schema.$defs;

/** Every node under `node` (not `node` itself), with the path to it. */
function* below(node: unknown, path: string): Generator<[Node, string]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* within(item, `${path}[${i}]`);
  } else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith("x-")) continue; // annotations, not subschemas
      yield* within(value, `${path}.${key}`);
    }
  }
}
function* within(node: unknown, path: string): Generator<[Node, string]> {
  if (typeof node === "object" && node !== null && !Array.isArray(node)) yield [node as Node, path];
  yield* below(node, path);
}

test("no object, union or enum is inlined: each is a $defs entry of its own", () => {
  const inlined: string[] = [];
  for (const [name, def] of Object.entries(defs))
    for (const [node, path] of below(def, name)) {
      const enumerated = Array.isArray(node.enum) && node.enum.length > 1;
      if (node.properties || node.oneOf || enumerated) inlined.push(path);
    }
  assert.deepEqual(inlined, []);
});

test("every $ref resolves to a $defs entry, and every entry has its name as title", () => {
  for (const [node, path] of within(schema, "#")) {
    if (typeof node.$ref !== "string") continue;
    const name = node.$ref.replace("#/$defs/", "");
    assert.ok(defs[name], `${path}: ${node.$ref}`);
  }
  for (const [name, def] of Object.entries(defs)) assert.equal(def.title, name);
});

test("a request type per method, `method` a const, and the root lists every frame type", () => {
  // Type names are the method's in PascalCase, except where schema-names.ts renames one
  // (methodBase: no name carries "Mcp", which quicktype spells differently per language).
  const pascal = methodBase;
  const roots = schema.anyOf.map((ref) => String(ref.$ref).replace("#/$defs/", ""));
  for (const method of PUBLIC_METHOD_NAMES) {
    const request = defs[`${pascal(method)}Request`];
    assert.ok(request, method);
    const props = request.properties as Record<string, Node>;
    assert.equal(props.method?.const, method);
    assert.deepEqual(props.params, { $ref: `#/$defs/${pascal(method)}Params` });
    assert.ok(
      roots.includes(`${pascal(method)}Request`) && roots.includes(`${pascal(method)}Response`),
    );
  }
  assert.ok(roots.includes("ErrorResponse") && roots.includes("TurnEventNotification"));
});

test("turn events: a oneOf discriminated by type, each variant with every field", () => {
  const union = defs.TurnEvent as {
    oneOf: Node[];
    discriminator: { propertyName: string; mapping: Record<string, string> };
  };
  assert.equal(union.discriminator.propertyName, "type");
  assert.equal(union.oneOf.length, TurnEventBody().options.length);
  for (const option of TurnEventBody().options) {
    const type = option.shape.type.value;
    const name = String(union.discriminator.mapping[type]).replace("#/$defs/", "");
    const variant = defs[name] as { properties: Record<string, Node>; required: string[] };
    assert.deepEqual(
      Object.keys(variant.properties).sort(),
      Object.keys(option.shape).sort(),
      type,
    );
    assert.equal(variant.properties.type?.const, type);
    assert.ok(variant.required.includes("type"));
  }
  assert.equal(defs.MessageDeltaEvent?.title, "MessageDeltaEvent");
});

test("codes and enums are enums with their descriptions", () => {
  const codes = defs.ErrorCode as { enum: string[]; "x-enum-descriptions": Record<string, string> };
  assert.ok(codes.enum.includes("session_locked"));
  assert.deepEqual(Object.keys(codes["x-enum-descriptions"]).sort(), [...codes.enum].sort());
  assert.match(String(defs.PermissionLevel?.description), /`ask`: /);
});
