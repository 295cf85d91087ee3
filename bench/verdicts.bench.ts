import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TestChild } from "../src/conformance/harness.js";
import { verdictPlace } from "../src/sessions/verdicts/verdict-root.js";
import { StoreBuilder } from "../test/fixtures/store-builder.js";
import { withTempDir } from "./bench-support.js";
import { CODEX_VERSION, installCodex } from "./peer-install.js";
import { codexListMs, codexStore, dropCodexIndex } from "./peer-rollouts.js";
import { type Bench, type BenchRow, median } from "./report.js";

/**
 * A complete `session.discover` (cursors followed to `complete`) by a fresh child, at the issue's
 * four store shapes, with and without the verdict cache (docs/extensions.md, "The verdict
 * cache"). The baseline of every row is the same child with the cache off (MC_AGENT_VERDICTS=
 * off): what every listing cost before the cache. Rows: cold (no cache folder: the first scan,
 * which also writes the verdicts), warm (a cache from an earlier scan), and after 1% of the
 * histories were appended to (their verdicts no longer match). Each store is built once, the
 * 2 s ctime margin waited out, and deleted after its rows. MC_BENCH_VERDICT_SCALE scales the
 * history counts down for a quick look.
 */
const MiB = 1024 * 1024;
const KiB = 1024;
const SCALE = Number(process.env.MC_BENCH_VERDICT_SCALE ?? 1);
const ROUNDS = 3;
/** `cold`: also the cold-read rows (the byte scanner against the JSON.parse path). */
const SHAPES = [
  { count: 200, bytes: 4 * MiB, record: 16 * KiB, cold: true },
  { count: 2000, bytes: 256 * KiB, record: 2 * KiB, cold: true },
  { count: 5000, bytes: 16 * KiB, record: 1 * KiB, cold: false },
  { count: 20_000, bytes: 4 * KiB, record: 512, cold: false },
];
type Shape = (typeof SHAPES)[number];

/** Every history read (no verdict cache), by the byte scanner or, as before it, JSON.parse. */
const COLD_SCAN = { MC_AGENT_VERDICTS: "off" };
const COLD_PARSE = { MC_AGENT_VERDICTS: "off", MC_AGENT_RECORD_SCAN: "parse" };

/** The cache root (MC_AGENT_CACHE_DIR) beside MC_HOME, never the real user's ~/.cache. */
export function verdictCacheRoot(home: string): string {
  return join(home, "..", "user-cache");
}

/**
 * One complete discovery by a fresh child (`command`: another build's, bench/cold-ab.ts).
 * `keep`: the child stays until the cache holds that many verdicts (a frontend keeps its child;
 * one shut down at once may leave queued verdicts unwritten, which costs only the next
 * listing's reading).
 */
export async function discoverMs(
  home: string,
  cwd: string,
  env: Record<string, string>,
  keep = 0,
  command?: string[],
) {
  const cacheDir = verdictCacheRoot(home);
  const child = new TestChild({
    cwd,
    home,
    env: { MC_AGENT_CACHE_DIR: cacheDir, ...env },
    ...(command ? { command } : {}),
  });
  try {
    await child.initialize(["session.discover"]);
    // Timed from a child that has loaded: the starter answers the initialize before the rest of
    // the child loads (docs/local-agent-protocol.md, "Fast start"), a cost the start-up rows
    // count, not a listing's (a build before the starter loaded before its initialize too).
    await child.call("status", {});
    const started = performance.now();
    let cursor: string | undefined;
    let rows = 0;
    for (;;) {
      const page = await child.call("session.discover", cursor === undefined ? {} : { cursor });
      rows += page.sessions.length;
      if (page.cursor === null) break;
      cursor = page.cursor;
    }
    const ms = performance.now() - started;
    if (keep > 0) await verdictsWritten(cacheDir, home, keep);
    return { ms, rows };
  } finally {
    await child.close();
  }
}

/** Waits (bounded) until the background writer has left `count` verdict files. */
async function verdictsWritten(cacheDir: string, home: string, count: number): Promise<void> {
  const folder = verdictPlace({ MC_AGENT_CACHE_DIR: cacheDir }, home)?.folder;
  if (folder === undefined) return;
  for (let i = 0; i < 1200; i += 1) {
    try {
      if (readdirSync(folder).filter((n) => n.endsWith(".json")).length >= count) return;
    } catch {}
    await sleep(50);
  }
}

const PEER = `Codex app-server ${CODEX_VERSION}`;

/** Codex's complete listing of the same shape, cold (its index removed) and warm, per round. */
async function codexRows(binary: string | null, count: number, bytes: number) {
  if (binary === null) return null;
  const store = await codexStore(binary, count, bytes);
  try {
    const cold = [] as number[];
    const warm = [] as number[];
    let rows = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      dropCodexIndex(store);
      cold.push((await codexListMs(binary, store)).ms);
      const again = await codexListMs(binary, store);
      warm.push(again.ms);
      rows = again.rows;
    }
    return { cold, warm, rows };
  } finally {
    store.cleanup();
  }
}

/** The store of a shape, in `root`: `count` histories of `shape.bytes`. */
function buildStore(root: string, shape: Shape, count: number) {
  const home = join(root, "home");
  const cwd = join(root, "workspace");
  mkdirSync(cwd, { recursive: true });
  const store = new StoreBuilder(home, cwd, 24);
  for (let i = 0; i < count; i += 1) store.sized(`h${i}`, shape.bytes, shape.record);
  execFileSync("sync");
  return { home, cwd, store };
}

/**
 * The cold-read rows (docs/store.md, "Cold reads"): a complete discovery by a fresh child that
 * reads every history, with the byte scanner and with MC_AGENT_RECORD_SCAN=parse (the path
 * before it), in `ROUNDS` alternating rounds. Its ratio is the scanner's speed-up.
 */
async function coldRows(home: string, cwd: string, label: string): Promise<BenchRow[]> {
  const scan = [] as number[];
  const parse = [] as number[];
  for (let round = 0; round < ROUNDS; round += 1) {
    scan.push((await discoverMs(home, cwd, COLD_SCAN)).ms);
    parse.push((await discoverMs(home, cwd, COLD_PARSE)).ms);
  }
  const spread = (t: number[]) => t.map((x) => x.toFixed(0)).join("/");
  const pairs = scan.map((ms, i) => (parse[i] as number) / ms);
  return [
    {
      name: `session.discover complete, ${label}, fresh child, cold, byte scan (median of ${ROUNDS})`,
      figure: median(scan),
      baseline: median(parse),
      unit: "ms",
      baselineName: "the same, cold, JSON.parse path (MC_AGENT_RECORD_SCAN=parse), alternating",
      note: `lower is better; target ratio at most 0.5; rounds ${spread(scan)} ms vs ${spread(parse)} ms; speed-ups ${Math.min(...pairs).toFixed(2)} to ${Math.max(...pairs).toFixed(2)}`,
    },
  ];
}

/** The cold-read rows alone, each shape's store built and deleted (MC_BENCH_VERDICT_SCALE). */
export async function coldReadBench(scale = SCALE): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const shape of SHAPES.filter((s) => s.cold)) {
    const count = Math.max(10, Math.round(shape.count * scale));
    rows.push(
      ...(await withTempDir("mc-bench-cold-", async (dir) => {
        const { home, cwd } = buildStore(realpathSync(dir), shape, count);
        return coldRows(home, cwd, `${count} histories of ${shape.bytes / KiB} KiB`);
      })),
    );
  }
  return rows;
}

async function shapeRows(shape: Shape, binary: string | null): Promise<BenchRow[]> {
  const count = Math.max(10, Math.round(shape.count * SCALE));
  const label = `${count} histories of ${shape.bytes / KiB} KiB`;
  return withTempDir("mc-bench-verdicts-", async (dir) => {
    const root = realpathSync(dir);
    const { home, cwd, store } = buildStore(root, shape, count);
    const cold = shape.cold ? await coldRows(home, cwd, label) : [];
    await sleep(2_200);
    const cache = verdictCacheRoot(home);
    const off = [] as number[];
    const first = [] as number[];
    const warm = [] as number[];
    const changed = [] as number[];
    const changedCount = Math.max(1, Math.round(count / 100));
    for (let round = 0; round < ROUNDS; round += 1) {
      off.push((await discoverMs(home, cwd, { MC_AGENT_VERDICTS: "off" })).ms);
      rmSync(cache, { recursive: true, force: true });
      // Histories under 8 KiB get no verdict (docs/extensions.md): nothing to wait for.
      const kept = shape.bytes >= 8192 ? count : 0;
      first.push((await discoverMs(home, cwd, {}, kept)).ms);
      warm.push((await discoverMs(home, cwd, {})).ms);
      // 1% appended to: new length, mtime and ctime; read in full again, the rest cached.
      for (let i = 0; i < changedCount; i += 1) {
        const id = `h${(round * 7919 + i * 101) % count}`;
        const line = { type: "user_message", ts: store.nextTs(), cwd, text: `more ${round}` };
        appendFileSync(join(store.root, `${id}.jsonl`), `${JSON.stringify(line)}\n`);
      }
      changed.push((await discoverMs(home, cwd, {})).ms);
      // Let the changed histories age past the margin, so the next round starts alike.
      await sleep(2_200);
    }
    rmSync(home, { recursive: true, force: true });
    const codex = await codexRows(binary, count, shape.bytes);
    const spread = (t: number[]) => t.map((x) => x.toFixed(0)).join("/");
    const peer = (kind: string, times: number[], theirs: number[], what: string): BenchRow => ({
      name: `complete listing, ${label}, fresh process: ours ${kind} vs ${PEER} ${what} (median of ${ROUNDS})`,
      figure: median(times),
      baseline: median(theirs),
      unit: "ms",
      baselineName: `${PEER}: thread/list (cwd filter, pages of 100) to the last page, ${what}`,
      note: `lower is better; ours ${spread(times)} ms, Codex ${spread(theirs)} ms; Codex listed ${codex?.rows} threads`,
    });
    const row = (kind: string, times: number[], note: string): BenchRow => ({
      name: `session.discover complete, ${label}, fresh child, ${kind} (median of ${ROUNDS})`,
      figure: median(times),
      baseline: median(off),
      unit: "ms",
      baselineName: "the same child with the verdict cache off (every history read)",
      note: `lower is better; ${note}; rounds ${times.map((t) => t.toFixed(0)).join("/")} ms vs ${off.map((t) => t.toFixed(0)).join("/")} ms`,
    });
    const peers = codex
      ? [
          peer("warm (verdict cache present)", warm, codex.warm, "warm (its index present)"),
          peer("after 1% changed", changed, codex.warm, "warm"),
          peer("cold (no verdict cache)", first, codex.cold, "cold (its state database removed)"),
        ]
      : [];
    return [
      ...peers,
      row("cold (no cache folder; writes the verdicts)", first, "the first scan"),
      row("warm (cache present)", warm, "no history opened"),
      row(`after 1% (${changedCount}) of the histories changed`, changed, "those read in full"),
      ...cold,
    ];
  });
}

const bench: Bench = {
  title: "Listing with the verdict cache: cold, warm and after 1% changed",
  about: `
A complete \`session.discover\` by a fresh child (spawn and \`initialize\` not timed), over stores of
200 × 4 MiB, 2,000 × 256 KiB, 5,000 × 16 KiB and 20,000 × 4 KiB histories, next to the same child
with the verdict cache off in the same run, and next to Codex app-server ${CODEX_VERSION} listing
the same number of rollouts of the same size (clones of one rollout Codex wrote for a real turn
against the bench server, padded with assistant records: bench/peer-rollouts.ts), cold (its
state database removed) and warm, by a fresh \`codex app-server\` each time (installed on demand
by bench/peer-install; \`MC_BENCH_NO_PEER=1\` leaves it out). Rerun with \`npm run bench -- verdicts\`
(\`MC_BENCH_VERDICT_SCALE=0.1\` for a quick look). At 200 × 4 MiB and 2,000 × 256 KiB, the "cold,
byte scan" rows compare every history read by the byte scanner with the same child on the JSON.parse
path (\`MC_AGENT_RECORD_SCAN=parse\`; docs/store.md, "Cold reads"); \`node dist/bench/cold-read.js\`
runs those alone.
`,
  async run() {
    const install = process.env.MC_BENCH_NO_PEER === "1" ? null : await installCodex();
    const binary = install && "binary" in install ? install.binary : null;
    if (install && "skipped" in install)
      process.stderr.write(`  Codex skipped: ${install.skipped}\n`);
    const rows: BenchRow[] = [];
    for (const shape of SHAPES) rows.push(...(await shapeRows(shape, binary)));
    return rows;
  },
};

export default bench;
