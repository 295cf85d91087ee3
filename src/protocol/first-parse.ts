import type { z } from "zod";

/**
 * zod's parse options for a schema's next check: `{ jitless: true }` on its first, none after.
 * zod compiles an object schema's fast path (one generated function per object shape, which
 * V8's code cache cannot keep: it is made by `new Function`) on the schema's first parse. Most
 * of the protocol's schemas check a handful of values in a child's life (initialize,
 * session.create, settings.get, ...), and their compiling was a few milliseconds of every start
 * to a session ready (docs/benchmarks.md, "Start-up to a session ready against Codex"); the
 * schemas a child checks often compile on their second check instead, and a first check
 * without the fast path checks exactly the same (zod runs the same checks either way). Checks
 * of the protocol's frames go through `safeParse` below.
 */
const JITLESS = { jitless: true } as const;
const checked = new WeakSet<object>();

function firstParseOptions(schema: object): typeof JITLESS | undefined {
  if (checked.has(schema)) return undefined;
  checked.add(schema);
  return JITLESS;
}

/** `schema.safeParse(value)`, its first check without the compiled fast path. */
export function safeParse<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(value, firstParseOptions(schema));
}
