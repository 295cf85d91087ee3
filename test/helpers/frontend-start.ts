/**
 * The capabilities of the start a real frontend makes (issue 44): turns and the session and
 * model methods it drives them with. The start-up bench times its initialize, and the fast
 * start's tests hold the starter's answer to it to the child's.
 */
export const FRONTEND_START_CAPABILITIES: readonly string[] = Object.freeze([
  "turn",
  "session.create",
  "session.open",
  "session.discover",
  "model.catalog",
  "model.select",
]);
