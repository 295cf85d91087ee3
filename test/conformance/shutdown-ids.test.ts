import { SHUTDOWN_ID_CASES } from "../../src/conformance/cases/shutdown-ids.js";
import { registerCases } from "./register.js";

registerCases(SHUTDOWN_ID_CASES);
