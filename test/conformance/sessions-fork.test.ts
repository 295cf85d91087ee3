import { SESSION_FORK_CASES } from "../../src/conformance/cases/sessions-fork.js";
import { registerCases } from "./register.js";

registerCases(SESSION_FORK_CASES);
