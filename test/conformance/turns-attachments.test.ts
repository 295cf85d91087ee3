import { TURN_ATTACHMENT_CASES } from "../../src/conformance/cases/turns-attachments.js";
import { registerCases } from "./register.js";

registerCases(TURN_ATTACHMENT_CASES);
