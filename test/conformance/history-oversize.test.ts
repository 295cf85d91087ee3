import { HISTORY_OVERSIZE_CASES } from "../../src/conformance/cases/history-oversize.js";
import { registerCases } from "./register.js";

registerCases(HISTORY_OVERSIZE_CASES);
