import { TRUST_CASES } from "../../src/conformance/cases/trust.js";
import { registerCases } from "./register.js";

registerCases(TRUST_CASES);
