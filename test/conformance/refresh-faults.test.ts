import { CANCEL_REFRESH_CASES } from "../../src/conformance/cases/cancel-refresh.js";
import { REFRESH_FAULT_CASES } from "../../src/conformance/cases/refresh-faults.js";
import { REFRESH_KILL_CASES } from "../../src/conformance/cases/refresh-kill.js";
import { registerCases } from "./register.js";

registerCases([...REFRESH_FAULT_CASES, ...REFRESH_KILL_CASES, ...CANCEL_REFRESH_CASES]);
