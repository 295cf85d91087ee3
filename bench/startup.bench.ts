import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { WORKSPACE_MARK } from "../src/agent/sandbox/marked-paths.js";
import { probeMemoPath } from "../src/agent/sandbox/probe-memo.js";
import { privateCacheRoot } from "../src/boot/compile-cache.js";
import { type Sandbox, sandbox, TestChild } from "../src/conformance/harness.js";
import { FRONTEND_START_CAPABILITIES } from "../test/helpers/frontend-start.js";
import { type Bench, type BenchRow, median } from "./report.js";

/**
 * Issue 2's figures: how long a frontend waits from spawning the child to its initialize
 * result, next to a bare Node start; and how many pipelined status round trips one child
 * answers per second, next to the smallest NDJSON echo loop Node can run, over the same pipes
 * and the same client code in the same run.
 */
const STARTS = 20;
/** The start a real frontend makes (issue 44): turn and the session and model capabilities. */
const FRONTEND_CAPABILITIES = [...FRONTEND_START_CAPABILITIES];
const ROUND_TRIPS = 20_000;
/** Echo and child alternate this many times; the row is the median round's ratio. */
const LOOP_ROUNDS = 5;

/** The baseline server: parse each line, answer with its ID; nothing else. */
const ECHO_LOOP = `
const rl = require("node:readline").createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const { id } = JSON.parse(line);
  process.stdout.write(JSON.stringify({ id, result: { state: "ready" } }) + "\\n");
});`;

/**
 * The bare start gets the child's own clean environment (the harness passes PATH and the store
 * variables only). Inheriting this process's instead made the baseline about three times too
 * slow: with NODE_EXTRA_CA_CERTS set (as on the machine this was built on) every `node` parses
 * the whole CA bundle first, 130-190 ms per start against 40-70 ms without it.
 */
async function bareNodeStartMs(): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const proc = spawn(process.execPath, ["-e", ""], {
      stdio: "ignore",
      env: { PATH: process.env.PATH },
    });
    proc.on("error", reject);
    proc.on("exit", () => resolve());
  });
  return performance.now() - started;
}

/**
 * Spawn to the initialize result; with `thenStatus`, to the answer of a `status` written right
 * behind it instead: the starter answers a plain initialize before the child has loaded
 * (src/boot/starter.ts), the status waits for the whole child, as any request behind it does.
 */
async function childInitializeMs(
  capabilities: string[],
  thenStatus = false,
  home?: Sandbox,
  where: { cwd?: string; env?: Record<string, string> } = {},
): Promise<number> {
  const box = home ?? sandbox("mc-bench-");
  const started = performance.now();
  const child = new TestChild({
    cwd: where.cwd ?? box.workspace,
    home: box.home,
    ...(where.env ? { env: where.env } : {}),
  });
  const initializing = child.initialize(capabilities);
  const status = thenStatus ? child.request("status", {}, "after-init") : null;
  const init = await initializing;
  if (status && !(await status).result) throw new Error("status failed");
  const elapsed = performance.now() - started;
  if (!init.result) throw new Error("initialize failed");
  await child.close();
  if (!home) box.cleanup();
  return elapsed;
}

/**
 * A home and workspace kept between starts, as a user's are between a frontend's starts: its
 * first start leaves the sandbox probe's memo (src/agent/sandbox/probe-memo.ts), which the
 * starter answers a `turn` initialize from; the real probe still runs at every start.
 */
async function warmHome(): Promise<Sandbox> {
  const box = sandbox("mc-bench-warm-");
  await childInitializeMs(FRONTEND_CAPABILITIES, false, box);
  // The memo is the user's, in the private cache folder (never MC_HOME): its entry for this
  // workspace is the one the warm starts answer from.
  const root = privateCacheRoot();
  const memo = root === null ? null : probeMemoPath(root);
  const deadline = Date.now() + 10_000;
  while (memo !== null && !memoNames(memo, box.workspace) && Date.now() < deadline) await pause(20);
  return box;
}

/**
 * Whether the memo file holds an entry for `workspace`'s runs: one naming it, or (the key names
 * the workspace by a mark where it can, marked-paths.ts) any entry of this boot at all.
 */
function memoNames(memo: string, workspace: string): boolean {
  try {
    const text = readFileSync(memo, "utf8");
    return (
      text.includes(JSON.stringify(workspace)) || text.includes(JSON.stringify(WORKSPACE_MARK))
    );
  } catch {
    return false;
  }
}

/** A workspace of its own in `home`'s box: a project opened for the first time. */
function newWorkspace(home: Sandbox, n: number): string {
  const workspace = join(home.root, `project-${n}`);
  mkdirSync(workspace);
  return workspace;
}

/**
 * A TMPDIR whose private cache folder holds this user's code caches but no probe memo: a start
 * no memo entry answers (the first since a reboot, a bwrap or kernel changed), its code cached.
 */
function cachesWithoutMemo(): { env: Record<string, string>; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mc-bench-nomemo-")));
  const mine = privateCacheRoot();
  const theirs = join(root, `mc-agent-${process.getuid?.() ?? 0}`);
  mkdirSync(theirs, { mode: 0o700 });
  for (const cache of ["code-cache", "compile-cache"]) {
    const from = mine === null ? null : join(mine, cache);
    if (from !== null && existsSync(from)) cpSync(from, join(theirs, cache), { recursive: true });
  }
  return { env: { TMPDIR: root }, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Round trips per second for `count` pipelined status requests written at once. */
async function pipelinedPerSecond(command: string[] | undefined, count: number): Promise<number> {
  const box = sandbox("mc-bench-");
  const child = new TestChild({
    cwd: box.workspace,
    home: box.home,
    ...(command ? { command } : {}),
  });
  // Warm up (and for the real child, a first round trip before timing).
  await child.request("status", {}, "warm");
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) lines.push(`{"id":"p${i}","method":"status","params":{}}\n`);
  const last = child.waitFor((f) => f.id === `p${count - 1}`, 120_000);
  const started = performance.now();
  await child.sendBytes(Buffer.from(lines.join("")));
  await last;
  const seconds = (performance.now() - started) / 1000;
  if (command) child.kill();
  else await child.close();
  box.cleanup();
  return count / seconds;
}

const ABOUT = `
Spawn to the initialize result of a fresh child (fresh MC_HOME and workspace, the child's clean
environment: PATH and the store variables, no NODE_EXTRA_CA_CERTS; the warm row's home and
workspace are kept between its starts), next to a bare \`node -e ""\` start to exit, the series
interleaved. What the child's start spends its time on, and
why the first row is still short of its target, is in "Start-up profile" below the tables.
`;

const bench: Bench = {
  title: "Child start and status round trips (issue 2)",
  about: ABOUT,
  async run(): Promise<BenchRow[]> {
    const bare: number[] = [];
    const child: number[] = [];
    const withTurn: number[] = [];
    const frontend: number[] = [];
    const frontendWarm: number[] = [];
    const frontendNewWorkspace: number[] = [];
    const frontendNoMemo: number[] = [];
    const loaded: number[] = [];
    const warm = await warmHome();
    // Interleaved, so that machine noise hits every series alike.
    for (let i = 0; i < STARTS; i += 1) {
      bare.push(await bareNodeStartMs());
      child.push(await childInitializeMs(["operation.cancel"]));
      withTurn.push(await childInitializeMs(["operation.cancel", "turn"]));
      frontend.push(await childInitializeMs(FRONTEND_CAPABILITIES));
      frontendWarm.push(await childInitializeMs(FRONTEND_CAPABILITIES, false, warm));
      const cwd = newWorkspace(warm, i);
      frontendNewWorkspace.push(
        await childInitializeMs(FRONTEND_CAPABILITIES, false, warm, { cwd }),
      );
      const noMemo = cachesWithoutMemo();
      frontendNoMemo.push(
        await childInitializeMs(FRONTEND_CAPABILITIES, false, undefined, { env: noMemo.env }),
      );
      noMemo.cleanup();
      loaded.push(await childInitializeMs(["operation.cancel"], true));
    }
    warm.cleanup();
    const rounds: { echo: number; status: number }[] = [];
    for (let i = 0; i < LOOP_ROUNDS; i += 1) {
      const echo = await pipelinedPerSecond([process.execPath, "-e", ECHO_LOOP], ROUND_TRIPS);
      rounds.push({ echo, status: await pipelinedPerSecond(undefined, ROUND_TRIPS) });
    }
    rounds.sort((a, b) => a.status / a.echo - b.status / b.echo);
    const { echo, status } = rounds[Math.floor(LOOP_ROUNDS / 2)] as (typeof rounds)[number];
    const ratios = rounds.map((r) => (r.status / r.echo).toFixed(2));
    return [
      {
        name: `child start to initialize result (median of ${STARTS})`,
        figure: median(child),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; target at most 1.5",
      },
      {
        name: `child start to initialize result negotiating turn, fresh home and workspace (median of ${STARTS})`,
        figure: median(withTurn),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; the starter finds the sandbox (src/server/turn-facts.ts): from the probe memo's entry of ones like them, the real run after the answer",
      },
      {
        name: `child start to initialize result negotiating what a frontend does (${FRONTEND_CAPABILITIES.join(", ")}), fresh home and workspace: answered from the probe memo's entry of ones like them (median of ${STARTS})`,
        figure: median(frontend),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; target at most 1.5 (issue 44); the memo's key names the workspace and MC_HOME by their mounts, not their paths",
      },
      {
        name: `the same, no probe memo entry applies (the first start since a reboot; code caches kept): the starter waits for the sandbox's real run (median of ${STARTS})`,
        figure: median(frontendNoMemo),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; the starter probes the sandbox and answers when the probe proves the child's answer",
      },
      {
        name: `the same, warm home (kept between starts, as a user's is): answered from the probe memo (median of ${STARTS})`,
        figure: median(frontendWarm),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; target at most 1.5 (issue 44); the real probe still runs at every start, after the answer",
      },
      {
        name: `the same, a new workspace in the kept home (a project opened for the first time) (median of ${STARTS})`,
        figure: median(frontendNewWorkspace),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; target at most 1.5 (issue 44); answered from the memo's entry of a workspace like it",
      },
      {
        name: `child start to the answer of a status written right behind initialize: the whole child loaded (median of ${STARTS})`,
        figure: median(loaded),
        baseline: median(bare),
        unit: "ms",
        baselineName: 'bare `node -e ""` start to exit',
        note: "lower is better; what the start costs in all (the starter answers initialize before the rest loads)",
      },
      {
        name: `pipelined status round trips over one child (${ROUND_TRIPS}, the median of ${LOOP_ROUNDS} alternating rounds)`,
        figure: status,
        baseline: echo,
        unit: "req/s",
        baselineName: "minimal NDJSON echo loop in Node",
        note: `higher is better; target at least 0.6; the rounds' ratios: ${ratios[0]} to ${ratios[ratios.length - 1]}`,
      },
    ];
  },
};

export default bench;
