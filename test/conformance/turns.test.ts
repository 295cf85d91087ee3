import { TURN_CASES } from "../../src/conformance/cases/turns.js";
import { registerCases } from "./register.js";

registerCases(TURN_CASES);
