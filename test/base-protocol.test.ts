import { BASE_CASES } from "../src/conformance/cases/index.js";
import { registerCases } from "./conformance/register.js";

// The base protocol's black-box tests are the conformance kit's cases (with the kit's wire
// audit): one source for both.
registerCases(BASE_CASES);
