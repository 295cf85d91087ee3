/**
 * A small seeded generator for cases that pick random moments (kill points, delays): the seed
 * comes from MC_FUZZ_SEED when set, is printed on failure, and replays the same moments.
 */
interface Random {
  seed: number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
}

export function seededRandom(seed = defaultSeed()): Random {
  let state = seed >>> 0;
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

function defaultSeed(): number {
  const fromEnv = Number(process.env.MC_FUZZ_SEED);
  return Number.isInteger(fromEnv) ? fromEnv : Date.now() % 2 ** 31;
}
