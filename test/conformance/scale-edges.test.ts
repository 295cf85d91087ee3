import { CANCEL_DISCOVER_CASES } from "../../src/conformance/cases/cancel-discover.js";
import { SCALE_CASES } from "../../src/conformance/cases/scale-edges.js";
import { registerCases } from "./register.js";

registerCases([...SCALE_CASES, ...CANCEL_DISCOVER_CASES]);
