import { SESSION_MANAGE_CASES } from "../../src/conformance/cases/sessions-manage.js";
import { registerCases } from "./register.js";

registerCases(SESSION_MANAGE_CASES);
