import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, rmSync, truncateSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Frame } from "../src/conformance/frame.js";
import { nextId, type Sandbox, sandbox } from "../src/conformance/harness.js";
import { answerEvents } from "../test/fixtures/chat-completions-server.js";
import { startReady } from "../test/helpers/child.js";
import { TURN_CAPS } from "../test/turns/turn-harness.js";
import { peakRssMb, probe } from "./bench-support.js";
import { writeBigHistory } from "./big-history.js";
import { type Bench, type BenchRow, median } from "./report.js";
import { soak } from "./soak.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { type BenchServer, startBenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * Issue 44, "Opening a big history": a fresh child's `session.open` of a history of 100 MB (and
 * 1 GB with MC_BENCH_BIG_SIZES=100,1000), then its first `turn.start` up to `turn_started`
 * read, warm and cold page cache, against one bare read and JSON.parse of every line of the
 * same file in a fresh process (bench/sessions-probe.ts `baseline`), alternating. Cold: the
 * file's pages dropped from the page cache before each side's round by `dd iflag=nocache`
 * (posix_fadvise DONTNEED on that file alone; no host setting is touched). The histories are
 * made of real turn records (bench/big-history.ts) in a temp folder, removed afterwards.
 */
const SIZES_MB = (process.env.MC_BENCH_BIG_SIZES ?? "100").split(",").map(Number);
const ROUNDS = Number(process.env.MC_BENCH_BIG_ROUNDS ?? 3);
const MB = 1_000_000;

const isTurnStarted = (frame: Frame) =>
  (frame as { params?: { event?: { type?: string } } }).params?.event?.type === "turn_started";

/** A real short session's history, compacting, to copy from (bench/soak.ts). */
async function template(server: BenchServer, box: Sandbox): Promise<string> {
  const child = await childStreamer(CHAT_COMPLETIONS, server, {
    contextWindow: 6000,
    permissions: "full_access",
    box,
  });
  try {
    await soak(server, child, box, { turns: 24, every: 24 });
  } finally {
    await child.close();
  }
  const folder = join(box.home, "sessions");
  const [name] = readdirSync(folder).filter((file) => file.endsWith(".jsonl"));
  if (!name) throw new Error("the template session wrote no history");
  return join(folder, name);
}

/** Drops the file's pages from the page cache (clean pages only: written and synced before). */
function dropCache(path: string): void {
  execFileSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"]);
}

/** One fresh child: session.open then turn.start to turn_started; ms from open, peak RSS. */
async function openAndAdmit(box: Sandbox, id: string): Promise<{ ms: number; rss: number }> {
  const child = await startReady(box, TURN_CAPS, { env: CHAT_COMPLETIONS.keyEnv });
  try {
    const started = performance.now();
    await child.call("session.open", { id }, 600_000);
    const turnId = nextId("turn");
    const admitted = child.waitFor(isTurnStarted, 600_000);
    const done = child.waitFor((f) => f.id === turnId, 600_000);
    child.send({ id: turnId, method: "turn.start", params: { input: "Go on." } });
    await admitted;
    const ms = performance.now() - started;
    const result = (await done) as { result?: { status?: string }; error?: unknown };
    if (result.result?.status !== "completed")
      throw new Error(`the turn did not complete: ${JSON.stringify(result.error ?? result)}`);
    return { ms, rss: peakRssMb(child.pid) };
  } finally {
    await child.close();
  }
}

async function sizeRows(box: Sandbox, from: string, mb: number) {
  const id = randomUUID();
  const path = join(box.home, "sessions", `${id}.jsonl`);
  try {
    const bytes = writeBigHistory(from, path, id, box.workspace, mb * MB);
    execFileSync("sync");
    const rows: BenchRow[] = [];
    for (const cache of ["warm", "cold"] as const) {
      const ours: { ms: number; rss: number }[] = [];
      const plain: { ms: number; rss: number }[] = [];
      // Warm: one untimed read of each first, so both find the file in memory.
      if (cache === "warm") {
        probe("baseline", path);
        await openAndAdmit(box, id);
        truncateSync(path, bytes);
      }
      for (let round = 0; round < ROUNDS; round += 1) {
        if (cache === "cold") dropCache(path);
        ours.push(await openAndAdmit(box, id));
        // The turn appended its records: the next round opens the same bytes as this one.
        truncateSync(path, bytes);
        execFileSync("sync");
        if (cache === "cold") dropCache(path);
        const base = probe("baseline", path);
        plain.push({ ms: base.ms, rss: base.rss_mb });
      }
      const load = loadavg()
        .map((l) => l.toFixed(1))
        .join(" ");
      const size = `${(bytes / MB).toFixed(0)} MB`;
      rows.push(
        {
          name: `session.open + first turn.start admitted, ${size} history, ${cache} page cache (median of ${ROUNDS})`,
          figure: median(ours.map((r) => r.ms)),
          baseline: median(plain.map((r) => r.ms)),
          unit: "ms",
          baselineName: "one read + JSON.parse of every line of the same file, fresh process",
          note: `lower is better${cache === "warm" ? "; target at most 1.5" : ""}; ours ${ours.map((r) => r.ms.toFixed(0)).join("/")} ms, baseline ${plain.map((r) => r.ms.toFixed(0)).join("/")} ms; load average ${load}`,
        },
        {
          name: `the child's peak RSS over that open and admission, ${size} history, ${cache} page cache`,
          figure: Math.max(...ours.map((r) => r.rss)),
          baseline: Math.max(...plain.map((r) => r.rss)),
          unit: "MB",
          baselineName: "the baseline process's peak RSS",
          note: `lower is better${cache === "warm" ? "; target under 150 MB" : ""}; load average ${load}`,
        },
      );
    }
    return rows;
  } finally {
    rmSync(path, { force: true });
  }
}

const bench: Bench = {
  title: "Opening a big history (issue 44)",
  about: `
A fresh child (spawned and initialized untimed) opens a session whose history is 100 MB of real
turn records (bench/big-history.ts: a 24-turn session our child ran, with tool calls, their
output, 2 KB answers and compactions, its turns copied with fresh IDs), then starts a turn: the
figure is \`session.open\` written to the turn's \`turn_started\` read (both passes of the
admission over every byte included). The baseline reads and JSON.parses every line of the same
file in a fresh process, alternating with ours. Cold: the file's pages dropped before each side
(\`dd iflag=nocache\`). Rerun with \`npm run bench -- big-history\`
(\`MC_BENCH_BIG_SIZES=100,1000\` for the 1 GB history too).
`,
  async run(): Promise<BenchRow[]> {
    const server = await startBenchServer();
    const box = sandbox("mc-bench-big-");
    try {
      const from = await template(server, box);
      server.plan(() => {
        const lines = answerEvents({ text: ["Done."] });
        return { head: lines, rest: [] };
      });
      const rows: BenchRow[] = [];
      for (const mb of SIZES_MB) rows.push(...(await sizeRows(box, from, mb)));
      return rows;
    } finally {
      await server.close();
      box.cleanup();
    }
  },
};

export default bench;
