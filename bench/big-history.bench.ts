import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync, truncateSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../src/conformance/harness.js";
import { answerEvents } from "../test/fixtures/chat-completions-server.js";
import { probe } from "./bench-support.js";
import { writeBigHistory } from "./big-history.js";
import { type OpenSide, openAndAdmit, templateHistory } from "./big-open.js";
import { CODEX_VERSION, installCodex } from "./peer-install.js";
import {
  type CodexBigThread,
  codexBigThread,
  codexResume,
  codexTurnPlanner,
} from "./peer-resume.js";
import { type Bench, type BenchRow, median } from "./report.js";
import { type BenchServer, startBenchServer } from "./turn-server.js";

/**
 * Issue 44, "Opening a big history": a fresh child's `session.open` of a history of 100 MB (and
 * 1 GB with MC_BENCH_BIG_SIZES=100,1000), then its first `turn.start` up to `turn_started`
 * read, warm and cold page cache, against one bare read and JSON.parse of every line of the
 * same file in a fresh process (bench/sessions-probe.ts `baseline`), alternating. Cold: the
 * file's pages dropped from the page cache before each side's round by `dd iflag=nocache`
 * (posix_fadvise DONTNEED on that file alone; no host setting is touched). The histories are
 * made of real turn records (bench/big-history.ts) in a temp folder, removed afterwards. Beside
 * it, warm, the peer: Codex app-server's `thread/resume` of a rollout of the same size and its
 * first `turn/start` answered (bench/peer-resume.ts), in the same rounds; MC_BENCH_NO_PEER=1
 * leaves it out.
 */
const SIZES_MB = (process.env.MC_BENCH_BIG_SIZES ?? "100").split(",").map(Number);
const ROUNDS = Number(process.env.MC_BENCH_BIG_ROUNDS ?? 3);
const MB = 1_000_000;

const DONE = answerEvents({ text: ["Done."] });
const PEER = `Codex app-server ${CODEX_VERSION}`;

interface Peer {
  binary: string;
  thread: CodexBigThread;
}

/** Codex's thread of `mb` MB (bench/peer-resume.ts), unless left out or not installable. */
async function peerThread(server: BenchServer, mb: number): Promise<Peer | undefined> {
  if (process.env.MC_BENCH_NO_PEER === "1") return undefined;
  const install = await installCodex();
  if ("skipped" in install) {
    process.stderr.write(`  ${PEER} left out: ${install.skipped}\n`);
    return undefined;
  }
  return { binary: install.binary, thread: await codexBigThread(install.binary, server, mb * MB) };
}

/** Drops the file's pages from the page cache (clean pages only: written and synced before). */
function dropCache(path: string): void {
  execFileSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"]);
}

interface Rounds {
  ours: OpenSide[];
  plain: OpenSide[];
  codex: { resumeMs: number; admittedMs: number; rss: number; answerBytes: number }[];
}

/** ROUNDS of ours, the bare parse and (warm) Codex, alternating, on `cache`'s page cache. */
async function rounds(
  box: Sandbox,
  history: { id: string; path: string; bytes: number },
  cache: "warm" | "cold",
  peer: Peer | undefined,
): Promise<Rounds> {
  const { id, path, bytes } = history;
  const out: Rounds = { ours: [], plain: [], codex: [] };
  const codex = cache === "warm" ? peer : undefined;
  const resume = async (p: Peer) => {
    const r = await codexResume(p.binary, p.thread);
    // Its turn appended to the rollout: the next round resumes the same bytes.
    truncateSync(p.thread.path, p.thread.bytes);
    return r;
  };
  // Warm: one untimed read of each first, so all find their file in memory.
  if (cache === "warm") {
    probe("baseline", path);
    await openAndAdmit(box, id);
    truncateSync(path, bytes);
    if (codex) await resume(codex);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    if (cache === "cold") dropCache(path);
    out.ours.push(await openAndAdmit(box, id));
    // The turn appended its records: the next round opens the same bytes as this one.
    truncateSync(path, bytes);
    execFileSync("sync");
    if (cache === "cold") dropCache(path);
    const base = probe("baseline", path);
    out.plain.push({ ms: base.ms, cpu: base.cpu_ms, rss: base.rss_mb });
    if (codex) out.codex.push(await resume(codex));
  }
  return out;
}

const joined = (values: number[]) => values.map((v) => v.toFixed(0)).join("/");

/** Ours against Codex's resume of a rollout of the same size, warm, from the same rounds. */
function peerRows(size: string, r: Rounds, peer: Peer, load: string): BenchRow[] {
  const rollout = `${(peer.thread.bytes / MB).toFixed(0)} MB rollout`;
  return [
    {
      name: `session.open + first turn.start admitted, ${size} history, warm, against the peer (median of ${ROUNDS})`,
      figure: median(r.ours.map((x) => x.ms)),
      baseline: median(r.codex.map((x) => x.admittedMs)),
      unit: "ms",
      baselineName: `${PEER}: thread/resume of a ${rollout} + its first turn/start answered, fresh process`,
      note: `lower is better; ours ${joined(r.ours.map((x) => x.ms))} ms, Codex ${joined(r.codex.map((x) => x.admittedMs))} ms (its thread/resume answered alone: ${joined(r.codex.map((x) => x.resumeMs))} ms, the answer ${(Math.max(...r.codex.map((x) => x.answerBytes)) / MB).toFixed(0)} MB: the whole thread); load average ${load}`,
    },
    {
      name: `the child's peak RSS over that open and admission, ${size} history, warm, against the peer`,
      figure: Math.max(...r.ours.map((x) => x.rss)),
      baseline: Math.max(...r.codex.map((x) => x.rss)),
      unit: "MB",
      baselineName: `${PEER}'s peak RSS over its resume and turn`,
      note: `lower is better; Codex ${joined(r.codex.map((x) => x.rss))} MB; load average ${load}`,
    },
  ];
}

async function sizeRows(box: Sandbox, from: string, mb: number, peer: Peer | undefined) {
  const id = randomUUID();
  const path = join(box.home, "sessions", `${id}.jsonl`);
  try {
    const bytes = writeBigHistory(from, path, id, box.workspace, mb * MB);
    execFileSync("sync");
    const rows: BenchRow[] = [];
    for (const cache of ["warm", "cold"] as const) {
      const r = await rounds(box, { id, path, bytes }, cache, peer);
      const { ours, plain } = r;
      const load = loadavg()
        .map((l) => l.toFixed(1))
        .join(" ");
      const size = `${(bytes / MB).toFixed(0)} MB`;
      rows.push(
        {
          name: `session.open + first turn.start admitted, ${size} history, ${cache} page cache (median of ${ROUNDS})`,
          figure: median(ours.map((x) => x.ms)),
          baseline: median(plain.map((x) => x.ms)),
          unit: "ms",
          baselineName: "one read + JSON.parse of every line of the same file, fresh process",
          note: `lower is better${cache === "warm" ? "; target at most 1.5" : ""}; ours ${joined(ours.map((x) => x.ms))} ms, baseline ${joined(plain.map((x) => x.ms))} ms; load average ${load}`,
        },
        {
          name: `CPU time of that open and admission, ${size} history, ${cache} page cache (median of ${ROUNDS})`,
          figure: median(ours.map((x) => x.cpu)),
          baseline: median(plain.map((x) => x.cpu)),
          unit: "ms",
          baselineName: "the bare read + JSON.parse's CPU time, same rounds",
          note: `lower is better; the child's threads together (its collector's helpers too), the baseline process's user + system; ours ${joined(ours.map((x) => x.cpu))} ms, baseline ${joined(plain.map((x) => x.cpu))} ms; load average ${load}`,
        },
        {
          name: `the child's peak RSS over that open and admission, ${size} history, ${cache} page cache`,
          figure: Math.max(...ours.map((x) => x.rss)),
          baseline: Math.max(...plain.map((x) => x.rss)),
          unit: "MB",
          baselineName: "the baseline process's peak RSS",
          note: `lower is better${cache === "warm" ? "; target under 150 MB" : ""}; load average ${load}`,
        },
      );
      if (peer && r.codex.length > 0) rows.push(...peerRows(size, r, peer, load));
    }
    return rows;
  } finally {
    rmSync(path, { force: true });
  }
}

const bench: Bench = {
  title: "Opening a big history (issue 44)",
  about: `
A fresh child (spawned, initialized and answering a \`status\`, all untimed: the starter
answers the \`initialize\` before the child has loaded, and the child's own load is the
start-up bench's figure, not the open's) opens a session whose history is 100 MB of real
turn records (bench/big-history.ts: a 24-turn session our child ran, with tool calls, their
output, 2 KB answers and compactions, its turns copied with fresh IDs), then starts a turn: the
figure is \`session.open\` written to the turn's \`turn_started\` read (both passes of the
admission over every byte included). The baseline reads and JSON.parses every line of the same
file in a fresh process, alternating with ours. Cold: the file's pages dropped before each side
(\`dd iflag=nocache\`). Rerun with \`npm run bench -- big-history\`
(\`MC_BENCH_BIG_SIZES=100,1000\` for the 1 GB history too).

Beside ours, warm, in the same rounds: the peer, ${PEER} (installed as the peer bench's is;
\`MC_BENCH_NO_PEER=1\` leaves it out). A real Codex thread against the same loopback server
(each turn an \`exec_command\` call and a 2 KB answer, compacting: bench/peer-resume.ts), its
rollout grown with copies of its own turns, fresh IDs, to the same size; a fresh
\`codex app-server\` (spawned and initialized untimed) answers \`thread/resume\` and then the
first \`turn/start\` (the turn accepted): the figure is \`thread/resume\` written to the
\`turn/start\` answer read (the resume's answer, the whole thread in one line, read and parsed
once, as a client must), its peak RSS read once that turn ended.
`,
  async run(): Promise<BenchRow[]> {
    const server = await startBenchServer();
    const box = sandbox("mc-bench-big-");
    try {
      const from = await templateHistory(server, box);
      const rows: BenchRow[] = [];
      for (const mb of SIZES_MB) {
        const peer = await peerThread(server, mb);
        // Ours asks Chat Completions, Codex the Responses API: each is answered in its own.
        server.plan((seen) =>
          seen.url.endsWith("/responses") ? codexTurnPlanner(seen) : { head: DONE, rest: [] },
        );
        try {
          rows.push(...(await sizeRows(box, from, mb, peer)));
        } finally {
          peer?.thread.cleanup();
        }
      }
      return rows;
    } finally {
      await server.close();
      box.cleanup();
    }
  },
};

export default bench;
