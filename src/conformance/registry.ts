import type { ConformanceCase } from "./case.js";
import { CANCEL_COMMIT_CASES } from "./cases/cancel-commit.js";
import { CANCEL_DISCOVER_CASES } from "./cases/cancel-discover.js";
import { CANCEL_REFRESH_CASES } from "./cases/cancel-refresh.js";
import { CANCEL_TIMING_CASES } from "./cases/cancel-timing.js";
import { CAPABILITY_CASES } from "./cases/capabilities.js";
import { ERROR_RECOVERY_CASES } from "./cases/errors-recovery.js";
import { FAULT_CASES } from "./cases/faults.js";
import { HISTORY_CURSOR_CASES } from "./cases/history-cursor.js";
import { HISTORY_FIDELITY_CASES } from "./cases/history-fidelity.js";
import { HISTORY_OVERSIZE_CASES } from "./cases/history-oversize.js";
import { HOOK_CASES } from "./cases/hooks.js";
import { BASE_CASES } from "./cases/index.js";
import { MCP_CASES } from "./cases/mcp.js";
import { MODEL_CASES } from "./cases/models.js";
import { REFRESH_FAULT_CASES } from "./cases/refresh-faults.js";
import { REFRESH_KILL_CASES } from "./cases/refresh-kill.js";
import { SCALE_CASES } from "./cases/scale-edges.js";
import { SESSION_CASES } from "./cases/sessions.js";
import { SESSION_FORK_CASES } from "./cases/sessions-fork.js";
import { SESSION_MANAGE_CASES } from "./cases/sessions-manage.js";
import { SESSION_SEARCH_CASES } from "./cases/sessions-search.js";
import { SHUTDOWN_ID_CASES } from "./cases/shutdown-ids.js";
import { SKILL_COMMAND_CASES } from "./cases/skills-commands.js";
import { SUBAGENT_HISTORY_CASES } from "./cases/subagents-history.js";
import { TRUST_CASES } from "./cases/trust.js";
import { TURN_CASES } from "./cases/turns.js";
import { TURN_ATTACHMENT_CASES } from "./cases/turns-attachments.js";
import { TURN_PLAN_CASES } from "./cases/turns-plans.js";
import { TURN_REVERT_CASES } from "./cases/turns-revert.js";
import { TURN_REVERT_EDGE_CASES } from "./cases/turns-revert-edges.js";
import { TURN_SUBAGENT_CASES } from "./cases/turns-subagents.js";

/**
 * Every case list of the kit, by area. `mc-agent conformance` runs them all; the project's
 * node:test files register the same lists, so tests and kit never drift apart.
 */
const CASE_LISTS: Record<string, ConformanceCase[]> = {
  base: BASE_CASES,
  capabilities: CAPABILITY_CASES,
  sessions: SESSION_CASES,
  "history-fidelity": HISTORY_FIDELITY_CASES,
  models: MODEL_CASES,
  "errors-recovery": ERROR_RECOVERY_CASES,
  "cancel-timing": CANCEL_TIMING_CASES,
  "cancel-commit": CANCEL_COMMIT_CASES,
  "shutdown-ids": SHUTDOWN_ID_CASES,
  "history-cursor": HISTORY_CURSOR_CASES,
  "history-oversize": HISTORY_OVERSIZE_CASES,
  faults: FAULT_CASES,
  "cancel-refresh": CANCEL_REFRESH_CASES,
  "cancel-discover": CANCEL_DISCOVER_CASES,
  "refresh-faults": REFRESH_FAULT_CASES,
  "refresh-kill": REFRESH_KILL_CASES,
  scale: SCALE_CASES,
  turns: TURN_CASES,
  mcp: MCP_CASES,
  trust: TRUST_CASES,
  "sessions-fork": SESSION_FORK_CASES,
  "sessions-manage": SESSION_MANAGE_CASES,
  "sessions-search": SESSION_SEARCH_CASES,
  "turns-revert": [...TURN_REVERT_CASES, ...TURN_REVERT_EDGE_CASES],
  "turns-plans": TURN_PLAN_CASES,
  "turns-subagents": TURN_SUBAGENT_CASES,
  hooks: HOOK_CASES,
  "subagents-history": SUBAGENT_HISTORY_CASES,
  "skills-commands": SKILL_COMMAND_CASES,
  "turns-attachments": TURN_ATTACHMENT_CASES,
};

export function allCases(): ConformanceCase[] {
  const cases = Object.values(CASE_LISTS).flat();
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`two conformance cases share the ID ${c.id}`);
    ids.add(c.id);
  }
  return cases;
}
