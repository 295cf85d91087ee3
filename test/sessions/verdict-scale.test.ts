import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { verdictPlace } from "../../src/sessions/verdicts/verdict-root.js";
import type { TestChild } from "../helpers/child.js";
import { discoverAll, inSandbox, startSessions } from "../helpers/sessions.js";

/**
 * The seed's memory model with the verdict cache, at 100,000 histories (MC_SCALE=1, like the
 * kit's 100k case: writing and walking 100,000 files takes minutes on a loaded machine). A cold
 * scan that writes 100,000 verdicts and a warm scan that takes them both stay within the peak RSS
 * the discovery bench holds the child to (100 MB), and the cache is never held whole: the warm
 * child's peak is no higher than the cold one's by more than noise.
 */
const HEAVY = process.env.MC_SCALE !== "1";
const COUNT = 100_000;
const PEAK_MB = 100;
const ENV = {
  MC_AGENT_TEST_VERDICT_MARGIN_MS: "0",
  MC_AGENT_TEST_VERDICT_SYNC: "1",
};

function peakMb(child: TestChild): number {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

describe("verdict cache at scale", { skip: HEAVY ? "heavy: run with MC_SCALE=1" : false }, () => {
  it("100,000 histories: cold scan writes every verdict, warm scan takes them, both within the memory bound", () =>
    inSandbox(async (box, children) => {
      const folder = join(box.home, "sessions");
      mkdirSync(folder, { recursive: true });
      for (let i = 0; i < COUNT; i += 1) {
        const line = {
          type: "user_message",
          ts: "2026-11-29T10:00:00.000Z",
          cwd: box.workspace,
          text: `c${i}`,
        };
        writeFileSync(join(folder, `c${i}.jsonl`), `${JSON.stringify(line)}\n`);
      }
      const peaks: number[] = [];
      for (const kind of ["cold", "warm"]) {
        const env = { ...ENV, MC_AGENT_CACHE_DIR: join(box.root, "user-cache") };
        const child = await startSessions(box, { testMethods: true, env });
        children.push(child);
        const found = await discoverAll(child, 4000);
        assert.equal(found.error, null, kind);
        assert.equal(new Set(found.ids).size, COUNT, `${kind}: every session once`);
        peaks.push(peakMb(child));
        if (kind === "cold") {
          const cached = readdirSync(verdictPlace(env, box.home)?.folder ?? "");
          assert.equal(cached.filter((n) => n.endsWith(".json")).length, COUNT, "every verdict");
        }
      }
      for (const peak of peaks) assert.ok(peak < PEAK_MB, `peak RSS ${peak.toFixed(1)} MB`);
    }));
});
