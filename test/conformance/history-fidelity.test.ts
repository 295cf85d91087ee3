import { HISTORY_FIDELITY_CASES } from "../../src/conformance/cases/history-fidelity.js";
import { registerCases } from "./register.js";

registerCases(HISTORY_FIDELITY_CASES);
