import { MODEL_CASES } from "../../src/conformance/cases/models.js";
import { registerCases } from "./register.js";

registerCases(MODEL_CASES);
