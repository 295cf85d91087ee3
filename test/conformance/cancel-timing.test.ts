import { CANCEL_TIMING_CASES } from "../../src/conformance/cases/cancel-timing.js";
import { registerCases } from "./register.js";

registerCases(CANCEL_TIMING_CASES);
