import { loadavg } from "node:os";
import type { Frame } from "../src/conformance/frame.js";
import { sandbox } from "../src/conformance/harness.js";
import { acpStreamer } from "./acp-streamer.js";
import type { Bench, BenchRow } from "./report.js";
import { sdkStreamer } from "./sdk-streamer.js";
import { medianOfTurns, type SoakResult, soak, TOKENS_PER_TURN } from "./soak.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { type BenchServer, startBenchServer } from "./turn-server.js";
import { childStreamer, prepareBox } from "./turn-world.js";

/**
 * Issue 44's long-session soak (bench/soak.ts) through the stdio child, through `mc-agent acp`
 * and through the client SDK (`AgentClient` driving the real child): one session each, MC_BENCH_SOAK_TURNS turns (1,000 by default), compacting
 * about five times. The baselines are the same process's own early turns: its RSS at turn 50,
 * and the p50 of turns 51-100.
 */
const TURNS = Number(process.env.MC_BENCH_SOAK_TURNS ?? 1000);
const EVERY = 50;
const COMPACTIONS = 5;
const CONTEXT_WINDOW = Math.round((TURNS / (COMPACTIONS + 1)) * TOKENS_PER_TURN);

const isTurnStarted = (frame: Frame) => {
  const f = frame as { method?: string; params?: { event?: { type?: string } } };
  return f.method === "turn.event" && f.params?.event?.type === "turn_started";
};

async function stdioSoak(server: BenchServer): Promise<SoakResult> {
  const child = await childStreamer(CHAT_COMPLETIONS, server, {
    contextWindow: CONTEXT_WINDOW,
    permissions: "full_access",
  });
  try {
    return await soak(server, child, child.box, {
      turns: TURNS,
      every: EVERY,
      admitted: isTurnStarted,
    });
  } finally {
    await child.close();
  }
}

async function acpSoak(server: BenchServer): Promise<SoakResult> {
  const box = sandbox("mc-bench-soak-acp-");
  try {
    // The store and the model set up as the stdio child's, then the ACP agent on them.
    const setup = await childStreamer(CHAT_COMPLETIONS, server, {
      contextWindow: CONTEXT_WINDOW,
      box,
    });
    await setup.close();
    const agent = await acpStreamer(CHAT_COMPLETIONS, box, { mode: "full_access" });
    try {
      return await soak(server, agent, box, { turns: TURNS, every: EVERY });
    } finally {
      await agent.close();
    }
  } finally {
    box.cleanup();
  }
}

async function sdkSoak(server: BenchServer): Promise<SoakResult> {
  const box = sandbox("mc-bench-soak-sdk-");
  try {
    prepareBox(CHAT_COMPLETIONS, server, box, CONTEXT_WINDOW);
    const sdk = await sdkStreamer(CHAT_COMPLETIONS, box, { permissions: "full_access" });
    try {
      return await soak(server, sdk, box, { turns: TURNS, every: EVERY, admitted: isTurnStarted });
    } finally {
      await sdk.close();
    }
  } finally {
    box.cleanup();
  }
}

/** The rows of one soak: RSS at the end against turn 50, and the late turns' p50s. */
function rows(side: string, result: SoakResult, load: string): BenchRow[] {
  const first = result.samples[0];
  const last = result.samples[result.samples.length - 1];
  if (!first || !last) return [];
  const late = TURNS - EVERY + 1;
  const early = (values: number[]) => medianOfTurns(values, EVERY + 1, 2 * EVERY);
  const recent = (values: number[]) => medianOfTurns(values, late, TURNS);
  const history = `history ${(last.historyBytes / 1_048_576).toFixed(1)} MiB at turn ${last.turn}`;
  const rss = result.samples.map((s) => s.rssMb.toFixed(0)).join("/");
  const out: BenchRow[] = [
    {
      name: `${side}: RSS at turn ${last.turn} of one session (each turn a shell call and a 2 KB answer; ${result.summaries} compactions)`,
      figure: last.rssMb,
      baseline: first.rssMb,
      unit: "MB",
      baselineName: `the same process at turn ${first.turn}`,
      note: `lower is better; target at most 1.2 and under 120 MB; every ${EVERY} turns: ${rss} MB; ${history}; ${load}`,
    },
    {
      name: `${side}: first delta p50 of turns ${late}-${TURNS} (server's first byte to the first delta read)`,
      figure: recent(result.firstDeltaMs),
      baseline: early(result.firstDeltaMs),
      unit: "ms",
      baselineName: `turns ${EVERY + 1}-${2 * EVERY} of the same session`,
      note: `lower is better; target at most 1.5; ${load}`,
    },
  ];
  if (result.admissionMs.length > 0)
    out.push({
      name: `${side}: turn admission p50 of turns ${late}-${TURNS} (turn.start written to turn_started read)`,
      figure: recent(result.admissionMs),
      baseline: early(result.admissionMs),
      unit: "ms",
      baselineName: `turns ${EVERY + 1}-${2 * EVERY} of the same session`,
      note: `lower is better; target at most 1.5; ${load}`,
    });
  return out;
}

const loadNow = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`;

const bench: Bench = {
  title: "Long sessions: a 1,000-turn soak (issue 44)",
  about: `
One session of MC_BENCH_SOAK_TURNS turns (1,000 here unless a row says otherwise) against the
loopback server (bench/soak.ts): each turn the model says a few words and calls \`shell\`
(twenty lines, about 380 bytes), then answers 2 KB; the model's context window is set so the
session compacts about five times. Through the stdio child (\`full_access\`, so each turn takes
its two checkpoints), through \`mc-agent acp\` (mode \`full_access\`) and through the client
SDK (\`AgentClient\` spawning the real child, \`client.turn()\` with \`full_access\`: its
admission and first delta are read as the SDK hands the events to the application). The
baselines are the same process's own early turns. The load average beside each row is the
machine's at its end.
`,
  async run(): Promise<BenchRow[]> {
    const server = await startBenchServer();
    try {
      const stdio = await stdioSoak(server);
      const stdioLoad = loadNow();
      const acp = await acpSoak(server);
      const acpLoad = loadNow();
      const sdk = await sdkSoak(server);
      return [
        ...rows("mc-agent stdio", stdio, stdioLoad),
        ...rows("mc-agent acp", acp, acpLoad),
        ...rows("client SDK", sdk, loadNow()),
      ];
    } finally {
      await server.close();
    }
  },
};

export default bench;
