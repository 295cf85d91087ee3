import { TURN_REVERT_CASES } from "../../src/conformance/cases/turns-revert.js";
import { registerCases } from "./register.js";

registerCases(TURN_REVERT_CASES);
