import { CANCEL_COMMIT_CASES } from "../../src/conformance/cases/cancel-commit.js";
import { registerCases } from "./register.js";

registerCases(CANCEL_COMMIT_CASES);
