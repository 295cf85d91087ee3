/**
 * undici, loaded on first use (a refresh or a model call), never at child start: most children
 * list sessions long before they call a remote, if they ever do.
 */
export type Undici = typeof import("undici");

let undici: Promise<Undici> | null = null;

export function loadUndici(): Promise<Undici> {
  undici ??= import("undici").then(
    // Run from the child's bundle, undici (CommonJS) arrives as the `default` of its namespace;
    // run from the compiled sources, Node lists its exports by name.
    (module) => ("Agent" in module ? module : (module as { default: Undici }).default),
  );
  return undici;
}
