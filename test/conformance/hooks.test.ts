import { HOOK_CASES } from "../../src/conformance/cases/hooks.js";
import { registerCases } from "./register.js";

registerCases(HOOK_CASES);
