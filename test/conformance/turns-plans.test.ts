import { TURN_PLAN_CASES } from "../../src/conformance/cases/turns-plans.js";
import { registerCases } from "./register.js";

registerCases(TURN_PLAN_CASES);
