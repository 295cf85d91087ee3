/**
 * Schemas built on first use. Building the protocol's zod schemas at import was a quarter of
 * importing the child's bundle (docs/benchmarks.md, "Start-up profile", third pass), nearly all
 * of them for methods a start never sees. So every schema is a `lazy(() => z....)`: a memo that builds it the first
 * time it is called and returns that same object ever after (the JSON Schema export names
 * schemas by identity). A schema that uses another calls it inside its own builder; the method
 * table's getters call them (methods.ts). The rule for contributors is in docs/codegen.md
 * ("Writing a schema: built on first use"); test/server/start-lazy.test.ts holds the start to
 * it.
 * Not zod's `z.lazy`: that one wraps a schema and defers its inner one on every parse.
 */
import type { z } from "zod";

export type Lazy<T> = () => T;

/** The type a lazy schema validates: `Infer<typeof X>` for `z.infer` of what `X()` returns. */
export type Infer<L extends Lazy<z.ZodType>> = z.infer<ReturnType<L>>;

const lazies = new WeakSet<Lazy<unknown>>();
const built = new WeakSet<Lazy<unknown>>();
let builds = 0;

export function lazy<T>(build: () => T): Lazy<T> {
  let value: T | undefined;
  const get = (): T => {
    if (value === undefined) {
      value = build();
      built.add(get);
      builds += 1;
    }
    return value;
  };
  lazies.add(get);
  return get;
}

export function isLazy(value: unknown): value is Lazy<unknown> {
  return typeof value === "function" && lazies.has(value as Lazy<unknown>);
}

/** Whether `get` has built its value, without building it. */
export function isBuilt(get: Lazy<unknown>): boolean {
  return built.has(get);
}

/** How many lazy values this process has built so far (test builds report it). */
export function lazyBuilds(): number {
  return builds;
}
