import { TURN_REVERT_CASES } from "../../src/conformance/cases/turns-revert.js";
import { TURN_REVERT_EDGE_CASES } from "../../src/conformance/cases/turns-revert-edges.js";
import { registerCases } from "./register.js";

registerCases([...TURN_REVERT_CASES, ...TURN_REVERT_EDGE_CASES]);
