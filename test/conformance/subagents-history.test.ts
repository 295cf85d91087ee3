import { SUBAGENT_HISTORY_CASES } from "../../src/conformance/cases/subagents-history.js";
import { registerCases } from "./register.js";

registerCases(SUBAGENT_HISTORY_CASES);
