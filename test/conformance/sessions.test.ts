import { SESSION_CASES } from "../../src/conformance/cases/sessions.js";
import { registerCases } from "./register.js";

registerCases(SESSION_CASES);
