import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { CwdMatcher } from "../src/sessions/cwd.js";
import { HistoryScan, unboundedBudget } from "../src/sessions/history-scan.js";
import { Slicer } from "../src/sessions/slicer.js";
import { RECORD_BYTES } from "../src/sessions/validate.js";
import { RecordReader } from "../src/store/record-reader.js";

/**
 * Measurement subprocess for the session benchmarks, so that each figure gets its own peak RSS:
 *   node dist/bench/sessions-probe.js reader <history> <cwd>   the history reader (validation)
 *   node dist/bench/sessions-probe.js baseline <file-or-folder> read + JSON.parse every line
 * Prints one JSON line: {"bytes", "ms", "rss_mb", "records"}.
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

const started = performance.now();
const counted =
  mode === "reader" ? await reader(target as string, cwd as string) : baseline(target as string);
const ms = performance.now() - started;
const rssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ ...counted, ms, rss_mb: rssMb })}\n`);
