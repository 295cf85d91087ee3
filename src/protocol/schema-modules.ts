/**
 * The modules that export the protocol's schemas, by name: the JSON Schema export names each
 * exported schema after its export (json-schema.ts), and a test build reports which of them a
 * child has built so far (`test.schemas`, test/server/start-lazy.test.ts). Importing them builds
 * nothing (lazy.ts).
 */
import * as codes from "./codes.js";
import * as extensions from "./extensions.js";
import { isBuilt, isLazy } from "./lazy.js";
import * as attachments from "./schemas/attachments.js";
import * as checkpoints from "./schemas/checkpoints.js";
import * as common from "./schemas/common.js";
import * as fork from "./schemas/fork.js";
import * as lifecycle from "./schemas/lifecycle.js";
import * as mcp from "./schemas/mcp.js";
import * as models from "./schemas/models.js";
import * as plans from "./schemas/plans.js";
import * as rules from "./schemas/rules.js";
import * as sessions from "./schemas/sessions.js";
import * as settings from "./schemas/settings.js";
import * as skills from "./schemas/skills.js";
import * as steering from "./schemas/steering.js";
import * as subagents from "./schemas/subagents.js";
import * as turns from "./schemas/turns.js";

/** In naming order: a schema exported by two modules is named after the first. */
export const SCHEMA_MODULES: Record<string, Record<string, unknown>> = {
  common,
  codes,
  lifecycle,
  extensions,
  mcp,
  fork,
  models,
  rules,
  sessions,
  settings,
  turns,
  steering,
  checkpoints,
  plans,
  subagents,
  skills,
  attachments,
};

/** `module.Export` of every exported schema built so far, sorted (a re-export counts once). */
export function builtSchemaNames(): string[] {
  const names = new Map<unknown, string>();
  for (const [module, exports] of Object.entries(SCHEMA_MODULES))
    for (const [name, value] of Object.entries(exports))
      if (isLazy(value) && isBuilt(value) && !names.has(value))
        names.set(value, `${module}.${name}`);
  return [...names.values()].sort();
}
