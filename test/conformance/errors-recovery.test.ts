import { ERROR_RECOVERY_CASES } from "../../src/conformance/cases/errors-recovery.js";
import { registerCases } from "./register.js";

registerCases(ERROR_RECOVERY_CASES);
