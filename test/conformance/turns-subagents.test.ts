import { TURN_SUBAGENT_CASES } from "../../src/conformance/cases/turns-subagents.js";
import { registerCases } from "./register.js";

registerCases(TURN_SUBAGENT_CASES);
