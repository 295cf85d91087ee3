import { CAPABILITY_CASES } from "../../src/conformance/cases/capabilities.js";
import { registerCases } from "./register.js";

registerCases(CAPABILITY_CASES);
