import { MCP_CASES } from "../../src/conformance/cases/mcp.js";
import { registerCases } from "./register.js";

registerCases(MCP_CASES);
