/**
 * How many functions `run` makes with `new Function` (zod's compiled fast paths are made so),
 * not counting the empty one zod makes once to find out whether it may.
 */
export function functionsMade(run: () => void): number {
  let made = 0;
  const real = globalThis.Function;
  globalThis.Function = new Proxy(real, {
    construct(target, args: string[]) {
      if (args.at(-1) !== "") made += 1;
      return Reflect.construct(target, args);
    },
  });
  try {
    run();
  } finally {
    globalThis.Function = real;
  }
  return made;
}
