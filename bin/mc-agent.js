#!/usr/bin/env node
import { main } from "../dist/src/cli/main.js";

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
