import { SCALE_CASES } from "../../src/conformance/cases/scale-edges.js";
import { registerCases } from "./register.js";

registerCases(SCALE_CASES);
