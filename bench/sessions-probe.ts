import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { CwdMatcher } from "../src/sessions/history/cwd-rule.js";
import { HistoryScan, unboundedBudget } from "../src/sessions/history/history-scan.js";
import { RECORD_BYTES } from "../src/sessions/records/facts.js";
import { RecordReader } from "../src/sessions/records/record-reader.js";
import { Slicer } from "../src/sessions/slicer.js";

/**
 * Measurement subprocess for the session benchmarks, so that each figure gets its own peak RSS:
 *   node dist/bench/sessions-probe.js reader <history> <cwd>   the history reader (validation)
 *   node dist/bench/sessions-probe.js baseline <file-or-folder> read + JSON.parse every line
 *   node dist/bench/sessions-probe.js slices <ms>              scheduling noise (see below)
 * Prints one JSON line: {"bytes", "ms", "rss_mb", "records"} (slices: {"p50", "p99"}).
 */
const [mode, target, cwd] = process.argv.slice(2);

async function reader(
  path: string,
  canonicalCwd: string,
): Promise<{ bytes: number; records: number }> {
  const fd = openSync(path, "r");
  const scan = new HistoryScan(new RecordReader(fd, RECORD_BYTES), new CwdMatcher(canonicalCwd));
  await scan.advance(unboundedBudget(), new Slicer(new AbortController().signal));
  closeSync(fd);
  if (scan.verdict !== "eligible") throw new Error(`unexpected verdict ${scan.verdict}`);
  return { bytes: scan.bytesRead, records: scan.summary.records };
}

/** The plain way: 1 MiB reads, split on LF, JSON.parse each line; no validation at all. */
function baselineFile(path: string): { bytes: number; records: number } {
  const fd = openSync(path, "r");
  const chunk = Buffer.allocUnsafe(1 << 20);
  let carry = Buffer.alloc(0);
  let bytes = 0;
  let records = 0;
  for (;;) {
    const got = readSync(fd, chunk, 0, chunk.length, null);
    if (got === 0) break;
    bytes += got;
    const data = carry.length
      ? Buffer.concat([carry, chunk.subarray(0, got)])
      : chunk.subarray(0, got);
    let start = 0;
    for (let lf = data.indexOf(10, start); lf !== -1; lf = data.indexOf(10, start)) {
      JSON.parse(data.toString("utf8", start, lf));
      records += 1;
      start = lf + 1;
    }
    carry = Buffer.from(data.subarray(start));
  }
  if (carry.length) {
    JSON.parse(carry.toString("utf8"));
    records += 1;
  }
  closeSync(fd);
  return { bytes, records };
}

function baseline(path: string): { bytes: number; records: number } {
  if (!statSync(path).isDirectory()) return baselineFile(path);
  const total = { bytes: 0, records: 0 };
  for (const name of readdirSync(path)) {
    const one = baselineFile(join(path, name));
    total.bytes += one.bytes;
    total.records += one.records;
  }
  return total;
}

/**
 * The machine's own scheduling noise: a loop that burns CPU in 2 ms slices (as a discovery step
 * does) and yields, while a 1 ms interval timer records how late it fires. Its p99 is what any
 * CPU-busy process on this machine sees at best: the baseline for `status` latency.
 */
async function slices(durationMs: number): Promise<{ p50: number; p99: number; work: number }> {
  const lateness: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lateness.push(now - last);
    last = now;
  }, 1);
  const end = performance.now() + durationMs;
  let sink = 0;
  while (performance.now() < end) {
    const sliceStart = performance.now();
    while (performance.now() - sliceStart < 2) sink += JSON.parse('{"a":[1,2,3]}').a.length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  clearInterval(timer);
  lateness.sort((a, b) => a - b);
  const at = (p: number) =>
    lateness[Math.min(lateness.length - 1, Math.floor(lateness.length * p))] ?? 0;
  // `sink` keeps the busy work observable so it is not optimised away.
  return { p50: at(0.5), p99: at(0.99), work: sink };
}

if (mode === "slices") {
  process.stdout.write(`${JSON.stringify(await slices(Number(target)))}\n`);
  process.exit(0);
}

const started = performance.now();
const cpuBefore = process.cpuUsage();
const counted =
  mode === "reader" ? await reader(target as string, cwd as string) : baseline(target as string);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const rssMb = process.resourceUsage().maxRSS / 1024;
// cpu_ms: the process's CPU time for the work (a figure a loaded machine does not inflate much).
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify({ ...counted, ms, cpu_ms: cpuMs, rss_mb: rssMb })}\n`);
