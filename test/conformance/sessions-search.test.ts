import { SESSION_SEARCH_CASES } from "../../src/conformance/cases/sessions-search.js";
import { registerCases } from "./register.js";

registerCases(SESSION_SEARCH_CASES);
