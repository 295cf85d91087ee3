import { CANCEL_DISCOVER_CASES } from "../../src/conformance/cases/cancel-discover.js";
import { SCALE_CASES } from "../../src/conformance/cases/scale-edges.js";
import { registerCases } from "./register.js";

/**
 * The 100,000-session case writes 100,000 files and walks them (about 20 s on an idle 2-core
 * machine): it runs with MC_SCALE=1 (`npm run test:scale`) and in `mc-agent conformance`,
 * and is reported as skipped in the default run to keep the suite within CI limits.
 */
const HEAVY = new Set(["scale.sessions.100k"]);
const heavyOn = process.env.MC_SCALE === "1";

registerCases([...SCALE_CASES, ...CANCEL_DISCOVER_CASES], {
  skip: (c) =>
    HEAVY.has(c.id) && !heavyOn ? "heavy: run with MC_SCALE=1 (npm run test:scale)" : undefined,
});
