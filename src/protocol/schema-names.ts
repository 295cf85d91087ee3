/**
 * The type names of docs/protocol.schema.json (its `$defs` keys), which code generators turn
 * into class and enum names, so they are part of the contract: stable, and documented in
 * docs/codegen.md. Most names come from rules (json-schema.ts): a method's objects from the
 * method name, an exported schema from its export name, a variant from its discriminator value,
 * a nested object or enum from its parent and field. This file holds only the exceptions, where
 * the rule's name would be clumsy or would clash in a generated language.
 */

/** `Foo_bar.baz-qux` -> `FooBarBazQux`. */
export function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join("");
}

/** Exported schemas whose export name is not the type name. */
export const EXPORT_RENAMES: Record<string, string> = {
  TurnEventBody: "TurnEvent",
  Permissions: "PermissionLevel",
  Decision: "ApprovalDecision",
  ErrorFrame: "ErrorResponse",
  // quicktype writes the word "Mcp" as "MCP" in TypeScript, Python and Swift but "Mcp" in Rust,
  // so no name of ours carries it. `mcp.status` is "ServerTools" (it sorts before `StatusParams`:
  // quicktype names the fold of equal empty params after the last of them).
  McpServerStatus: "ToolServerStatus",
  McpServerName: "ToolServerName",
  McpStatusResult: "ServerToolsResult",
  McpChangedParams: "ToolServerChangedParams",
};

/** Methods and notifications whose type names do not come from `pascal(method)` (see above). */
const METHOD_BASES: Record<string, string> = {
  "mcp.status": "ServerTools",
  "mcp.changed": "ToolServerChanged",
};

/** The base of a method's or notification's type names (`<Base>Request`, `<Base>Params`, ...). */
export function methodBase(method: string): string {
  return METHOD_BASES[method] ?? pascal(method);
}

/**
 * Exported schemas that get no name of their own: the generic envelopes (each method has its
 * own request and response type instead) and the shared params objects (cloned per method).
 */
export const UNNAMED_EXPORTS = new Set([
  "RequestFrame",
  "SuccessFrame",
  "NotificationFrame",
  "EmptyParams",
  "CursorParams",
]);

/**
 * A discriminated union's variants, by the union's name: the variant name for one
 * discriminator value. Unions not listed get `<Union><Value>`.
 */
export const VARIANT_NAMES: Record<string, (value: string) => string> = {
  TurnEvent: (value) => `${pascal(value)}Event`,
  TurnStartResult: (value) => `Turn${pascal(value)}Result`,
  CatalogNotice: (value) => `${pascal(value)}Notice`,
  // quicktype writes an "Mcp" word as "MCP": the MCP tool rules get names without it.
  RuleOffer: (value) => `${ruleWord(value)}RuleOffer`,
  KeptRule: (value) => `Kept${ruleWord(value)}Rule`,
};

/**
 * Nested anonymous objects and enums, by `Parent.field` (`Parent.field[]` for an array's
 * items). Those not listed get `<Parent><Field>` (`<Parent><Field>Item`).
 */
export const NESTED_NAMES: Record<string, string> = {
  "InitializeParams.client": "ClientInfo",
  "InitializeResult.server": "ServerInfo",
  "TurnExtension.tools[]": "ToolName",
  "StatusResult.state": "ChildState",
  "StatusResult.worker": "WorkerState",
  "StatusResult.active_requests[]": "ActiveRequest",
  "SessionEntry.cwd": "SessionCwdState",
  "SessionCreateResult.session": "CreatedSession",
  "SessionDiscoverResult.recovery": "DiscoveryRecovery",
  "ModelRefreshResult.outcome": "RefreshOutcome",
  "TurnCompletedResult.stop_reason": "StopReason",
  "TurnFailedResult.error": "TurnError",
  "ApprovalRequestedEvent.kind": "ApprovalKind",
  "ApprovalResolvedEvent.decision": "ApprovalResolution",
  "ToolOutputDeltaEvent.stream": "OutputStream",
  "ToolDoneEvent.status": "ToolStatus",
  "RetryEvent.reason": "RetryReason",
  // The rule enums are shared by both tools' rules: named for what they are, not the first user.
  "KeptShellRule.effect": "RuleEffect",
  "KeptShellRule.scope": "RuleScope",
  "KeptShellRule.match": "RuleMatch",
  "ApprovalRulesResult.file": "RulesFileState",
  "SettingsCheckResult.home": "HomeState",
  "SettingsFileCheck.state": "SettingsFileState",
  "SettingsFileCheck.reason": "SettingsFault",
  "ToolServerStatus.transport": "ToolServerTransport",
  "ToolServerStatus.state": "ToolServerState",
  "ToolServerStatus.error": "ToolServerError",
};

function ruleWord(tool: string): string {
  return tool === "mcp" ? "ServerTool" : pascal(tool);
}
