import { FAULT_CASES } from "../../src/conformance/cases/faults.js";
import { registerCases } from "./register.js";

registerCases(FAULT_CASES);
