/**
 * The published JSON Schema (docs/protocol.schema.json), generated from the zod schemas so it
 * never drifts, and shaped for code generators (docs/codegen.md): every object, union and enum
 * is a named entry of `$defs`, each defined once and referenced by `$ref`; each method has a
 * request type (`method` a `const`) and a response type, each notification a type; unions are
 * `oneOf`s discriminated by their tag. The names follow the rules below and the exceptions in
 * schema-names.ts; descriptions come from schema-docs.ts. A schema added to a module of
 * SCHEMA_MODULES (schema-modules.ts), a method added to METHODS or a notification to NOTIFICATIONS is picked up with
 * no change here; a new schema module needs its line in SCHEMA_MODULES for its exports to keep
 * their names (without it, its objects are named by the nested rule, `<Parent><Field>`).
 */
import { z } from "zod";
import { isLazy } from "./lazy.js";
import {
  METHODS,
  type MethodName,
  NOTIFICATIONS,
  type NotificationName,
  PUBLIC_METHOD_NAMES,
} from "./methods.js";
import { describeType, type TypeDocs } from "./schema-docs.js";
import { SCHEMA_MODULES } from "./schema-modules.js";
import {
  EXPORT_RENAMES,
  methodBase,
  NESTED_NAMES,
  pascal,
  UNNAMED_EXPORTS,
  VARIANT_NAMES,
} from "./schema-names.js";
import { ErrorFrame, RequestId } from "./schemas/common.js";

type Meta = { id: string; title: string } & TypeDocs;

/** Assigns the type names: one zod schema, one name, one `$defs` entry. */
class Namer {
  readonly registry = z.registry<Meta>();
  /** Each name and its schema, in naming order (the registry itself cannot be listed). */
  readonly taken = new Map<string, z.ZodType>();
  /** Stand-in `$defs` keys of enums equal to a named one, and that name (see `name`). */
  readonly aliases = new Map<string, string>();

  /**
   * Names `schema` unless it already has a name; a name is never given to two different
   * schemas, except to two enums of the same values (the same enum written twice in the zod
   * schemas): the second gets a stand-in key that `dealias` folds into the first.
   */
  name<T extends z.ZodType>(schema: T, id: string, fallback?: string): T {
    if (this.registry.has(schema)) return schema;
    const holder = this.taken.get(id);
    if (holder && holder !== schema) {
      if (!sameEnum(holder, schema)) throw new Error(`schema type name ${id} is used twice`);
      const stand = `${id}__alias${this.aliases.size + 1}`;
      this.aliases.set(stand, id);
      this.registry.add(schema, { id: stand, title: id });
      return schema;
    }
    this.taken.set(id, schema);
    const docs = describeType(id, schema);
    const description = docs.description ?? fallback;
    this.registry.add(schema, { id, title: id, ...docs, ...(description ? { description } : {}) });
    return schema;
  }

  /** A fresh name for an object shared by several methods (a clone, so each gets its own). */
  own<T extends z.ZodType>(schema: T, id: string, fallback: string): T {
    return this.name(this.registry.has(schema) ? (schema.clone() as T) : schema, id, fallback);
  }

  idOf(schema: z.ZodType): string | undefined {
    return this.registry.get(schema)?.id;
  }
}

const sameEnum = (a: z.ZodType, b: z.ZodType) =>
  a instanceof z.ZodEnum &&
  b instanceof z.ZodEnum &&
  JSON.stringify(a.options) === JSON.stringify(b.options);

/** Every `$ref` to a stand-in key points at its name, and the stand-ins are gone. */
function dealias(value: unknown, aliases: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => dealias(item, aliases));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const stand = key === "$ref" && typeof item === "string" ? item.split("/").pop() : undefined;
    const name = stand === undefined ? undefined : aliases.get(stand);
    out[key] = name ? `#/$defs/${name}` : dealias(item, aliases);
  }
  return out;
}

const unwrap = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional || schema instanceof z.ZodNullable
    ? unwrap(schema.unwrap() as z.ZodType)
    : schema;

/** Objects, enums and unions get names; strings, numbers and literals stay inline. */
const isNameable = (schema: z.ZodType) =>
  schema instanceof z.ZodObject || schema instanceof z.ZodEnum || schema instanceof z.ZodUnion;

/** Names everything nested in a named schema that the rules name, depth first. */
function nameNested(namer: Namer, schema: z.ZodType, parent: string, seen: Set<z.ZodType>) {
  if (seen.has(schema)) return;
  seen.add(schema);
  const visit = (child: z.ZodType, key: string, fallback: string) => {
    const inner = unwrap(child);
    if (inner instanceof z.ZodArray) {
      visit(inner.element as z.ZodType, `${key}[]`, `${fallback}Item`);
      return;
    }
    if (!isNameable(inner)) return;
    if (!namer.idOf(inner)) namer.name(inner, NESTED_NAMES[key] ?? fallback);
    nameNested(namer, inner, namer.idOf(inner) as string, seen);
  };
  if (schema instanceof z.ZodObject) {
    for (const [field, child] of Object.entries(schema.shape as Record<string, z.ZodType>))
      visit(child, `${parent}.${field}`, `${parent}${pascal(field)}`);
  } else if (schema instanceof z.ZodDiscriminatedUnion) {
    const tag = schema._zod.def.discriminator;
    const variantName = VARIANT_NAMES[parent] ?? ((value: string) => `${parent}${pascal(value)}`);
    for (const option of schema.options as z.ZodObject[]) {
      const value = (option.shape[tag] as z.ZodLiteral<string>).value;
      namer.name(option, namer.idOf(option) ?? variantName(value));
      nameNested(namer, option, namer.idOf(option) as string, seen);
    }
  } else if (schema instanceof z.ZodUnion) {
    (schema.options as z.ZodType[]).forEach((option, index) => {
      visit(option, `${parent}|${index}`, `${parent}Option${index + 1}`);
    });
  }
}

/** One request, one response and the params and result of each public method. */
function methodFrames(namer: Namer) {
  const requests: z.ZodObject[] = [];
  const responses: z.ZodObject[] = [];
  const index: Record<string, unknown> = {};
  for (const method of PUBLIC_METHOD_NAMES) {
    const spec = METHODS[method as MethodName];
    const base = methodBase(method);
    const params = namer.own(spec.params, `${base}Params`, `The params of \`${method}\`.`);
    const result = namer.own(spec.result, `${base}Result`, `The result of \`${method}\`.`);
    const request = z.strictObject({ id: RequestId(), method: z.literal(method), params });
    const response = z.strictObject({ id: RequestId(), result });
    const needs = spec.capability ? ` (capability \`${spec.capability}\`)` : "";
    requests.push(namer.name(request, `${base}Request`, `A \`${method}\` request${needs}.`));
    responses.push(
      namer.name(response, `${base}Response`, `The success response to \`${method}\`.`),
    );
    index[method] = {
      capability: spec.capability,
      request: ref(`${base}Request`),
      response: ref(`${base}Response`),
      params: ref(`${base}Params`),
      result: ref(`${base}Result`),
    };
  }
  return { requests, responses, index };
}

function notificationFrames(namer: Namer) {
  const frames: z.ZodObject[] = [];
  const index: Record<string, unknown> = {};
  for (const method of Object.keys(NOTIFICATIONS) as NotificationName[]) {
    const spec = NOTIFICATIONS[method];
    const base = methodBase(method);
    const params = namer.own(spec.params, `${base}Params`, `The params of \`${method}\`.`);
    const frame = z.strictObject({ method: z.literal(method), params });
    const about =
      spec.request === null
        ? `A \`${method}\` notification, child to client, about the child itself.`
        : `A \`${method}\` notification, child to client, during \`${spec.request}\`.`;
    frames.push(namer.name(frame, `${base}Notification`, about));
    index[method] = {
      capability: spec.capability,
      request: spec.request,
      notification: ref(`${base}Notification`),
      params: ref(`${base}Params`),
    };
  }
  return { frames, index };
}

const ref = (id: string) => ({ $ref: `#/$defs/${id}` });

/** A union of at least one schema (z.union wants a non-empty tuple). */
const unionOf = (options: z.ZodType[]) => z.union(options as [z.ZodType, ...z.ZodType[]]);

export function buildProtocolSchema(): Record<string, unknown> {
  const namer = new Namer();
  const methods = methodFrames(namer);
  const notifications = notificationFrames(namer);
  for (const module of Object.values(SCHEMA_MODULES)) {
    for (const [exported, value] of Object.entries(module)) {
      // Building every schema here is the point: the export names them all (lazy.ts).
      const schema = isLazy(value) ? value() : value;
      if (!(schema instanceof z.ZodType) || UNNAMED_EXPORTS.has(exported)) continue;
      namer.name(schema, EXPORT_RENAMES[exported] ?? exported);
    }
  }
  const seen = new Set<z.ZodType>();
  for (const [id, schema] of [...namer.taken]) nameNested(namer, schema, id, seen);
  // The frame unions stay unnamed: a generator would fold each into one class of every field.
  const frames = {
    request: methods.requests,
    response: [...methods.responses, ErrorFrame()],
    notification: notifications.frames,
  };
  const root = unionOf([...frames.request, ...frames.response, ...frames.notification]);
  const generated = z.toJSONSchema(root, {
    metadata: namer.registry,
    target: "draft-2020-12",
    override: codegenShape,
  });
  const { $schema, $defs, ...frame } = dealias(generated, namer.aliases) as Record<string, unknown>;
  for (const stand of namer.aliases.keys()) delete ($defs as Record<string, unknown>)[stand];
  return {
    $schema,
    title: "local-agent stdio protocol, version 1 (mc-agent)",
    description:
      "Every frame of the protocol: a client request, a child response or a child notification. " +
      "Generate types from #/$defs/ (docs/codegen.md).",
    ...frame,
    frames: {
      request: frames.request.map((schema) => ref(namer.idOf(schema) as string)),
      response: frames.response.map((schema) => ref(namer.idOf(schema) as string)),
      error: ref("ErrorResponse"),
      notification: frames.notification.map((schema) => ref(namer.idOf(schema) as string)),
    },
    methods: methods.index,
    notifications: notifications.index,
    $defs: sortedDefs(namedEventTags($defs as Record<string, Def>)),
  };
}

/**
 * Two shapes zod writes its own way, rewritten for generators:
 * - a discriminated union also gets OpenAPI's `discriminator` (its tag and each value's type),
 *   which several generators read to decode the right variant;
 * - an open object (z.looseObject: extra fields are valid and kept, as a history record's are)
 *   becomes a plain JSON object, its known fields under `x-known-properties` and
 *   `x-known-required`: a generator renders listed properties as a class that drops every
 *   other field, which would lose the record.
 */
function codegenShape(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) {
  const schema = ctx.zodSchema as z.ZodType;
  const json = ctx.jsonSchema;
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const tag = schema._zod.def.discriminator;
    const mapping: Record<string, string> = {};
    for (const [index, option] of (schema.options as z.ZodObject[]).entries()) {
      const value = (option.shape[tag] as z.ZodLiteral<string>).value;
      const target = (json.oneOf as { $ref?: string }[] | undefined)?.[index]?.$ref;
      if (target) mapping[value] = target;
    }
    json.discriminator = { propertyName: tag, mapping };
  } else if (schema instanceof z.ZodObject && schema._zod.def.catchall instanceof z.ZodUnknown) {
    json["x-known-properties"] = json.properties;
    json["x-known-required"] = json.required;
    delete json.properties;
    delete json.required;
    json.additionalProperties = {};
  }
}

type Def = { properties?: Record<string, { const?: string; title?: string }>; oneOf?: Def[] } & {
  $ref?: string;
};

/**
 * Each turn event's `type` tag gets a title (`<Variant>Type`), which generators use as its
 * name. The variants are shared by two unions (`TurnEvent` and `subagent_event`'s
 * `InnerTurnEventBody`), and a member named `event` in both `subagent_event` and the hook
 * events makes quicktype's fold of them lose the tags' names (it made up `PurpleType`, ...).
 */
function namedEventTags(defs: Record<string, Def>): Record<string, Def> {
  for (const option of defs.TurnEvent?.oneOf ?? []) {
    const name = option.$ref?.slice("#/$defs/".length);
    const tag = name ? defs[name]?.properties?.type : undefined;
    if (name && tag?.const !== undefined) tag.title = `${name}Type`;
  }
  return defs;
}

/** `$defs` in name order, so a change shows as a small diff. */
function sortedDefs(defs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(defs)
      .sort()
      .map((id) => [id, defs[id]]),
  );
}
