import { SKILL_COMMAND_CASES } from "../../src/conformance/cases/skills-commands.js";
import { registerCases } from "./register.js";

registerCases(SKILL_COMMAND_CASES);
