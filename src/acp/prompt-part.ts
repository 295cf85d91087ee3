/**
 * What of the ACP agent only a prompt runs (its updates, the permission and trust questions, a
 * hook's refusal), reached through one `import()` (prompt-part-load.ts), so that an editor's
 * start loads none of it before its `session/new` is answered: in the ES module bundle (Node 22
 * and later) a chunk of its own, in Node 20's scripts part of dist/child/acp-later.cjs
 * (scripts/acp-later-split.js) with the turn engine. docs/acp.md, "Start-up".
 */
export { blockedAnswer, resultOrBlocked } from "./hook-updates.js";
export { askPermission } from "./permission.js";
export { askWorkspaceTrust } from "./trust-ask.js";
export { stopReason, TurnUpdates } from "./turn-updates.js";
