import { HISTORY_CURSOR_CASES } from "../../src/conformance/cases/history-cursor.js";
import { registerCases } from "./register.js";

registerCases(HISTORY_CURSOR_CASES);
