import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { CANCEL_DISCOVER_CASES } from "../../src/conformance/cases/cancel-discover.js";
import { HISTORY_CURSOR_CASES } from "../../src/conformance/cases/history-cursor.js";
import { SCALE_CASES } from "../../src/conformance/cases/scale-edges.js";
import { SESSION_CASES } from "../../src/conformance/cases/sessions.js";
import { registerCases } from "./register.js";

/**
 * The kit's discovery cases once more, with the verdict cache in play (the plain registrations
 * in sessions.test.ts, scale-edges.test.ts and history-cursor.test.ts run them as they come).
 * With the ctime margin at 0 a case's fresh histories get verdicts at once, and each listing
 * step waits for its cache writes: every listing after a case's first one finds a cache
 * written by a full read, and every mutation a case makes must still be seen through it. The
 * cache lives in a temp MC_AGENT_CACHE_DIR outside every case's MC_HOME (each home gets its own
 * folder there), so the cases' own checks that listings change nothing in MC_HOME apply in full.
 */
const HEAVY = new Set(["scale.sessions.100k"]);
const heavyOn = process.env.MC_SCALE === "1";
const cacheDir = realpathSync(mkdtempSync(join(tmpdir(), "mc-verdicts-")));
after(() => rmSync(cacheDir, { recursive: true, force: true }));

registerCases(
  [...SESSION_CASES, ...SCALE_CASES, ...CANCEL_DISCOVER_CASES, ...HISTORY_CURSOR_CASES],
  {
    env: {
      MC_AGENT_CACHE_DIR: cacheDir,
      MC_AGENT_TEST_VERDICT_MARGIN_MS: "0",
      MC_AGENT_TEST_VERDICT_SYNC: "1",
    },
    suffix: " [verdict cache present]",
    skip: (c) =>
      HEAVY.has(c.id) && !heavyOn ? "heavy: run with MC_SCALE=1 (npm run test:scale)" : undefined,
  },
);
