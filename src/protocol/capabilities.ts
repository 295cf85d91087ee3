import { EXTENSION_NAMES, EXTENSION_SPECS, type ExtensionName } from "./extensions.js";
import {
  METHODS,
  type MethodSpec,
  NOTIFICATIONS,
  type NotificationSpec,
  PUBLIC_METHOD_NAMES,
} from "./methods.js";

type RequestCapability = (typeof METHODS)[keyof typeof METHODS]["capability"];
type NotificationCapability = (typeof NOTIFICATIONS)[keyof typeof NOTIFICATIONS]["capability"];

/**
 * Capabilities that add fields, not methods: no table can name them, so they are listed here
 * (docs/extensions.md). `errors.recovery`: a next step on first-run errors and catalog notices;
 * `plans`: the `update_plan` tool, the `plan` event and record (docs/turns.md, "Plans");
 * `subagents`: the `agent` tool and the `subagent_event` event (docs/turns.md, "Subagents"),
 * and the method `session.subagent_history`;
 * `turn.queue`: turn.start's `queue` param (docs/turns.md, "Steering and queueing");
 * `hooks`: the turn events `hook_started` and `hook_done` (docs/hooks.md);
 * `skills`: the `skill` tool, the skill listing and `settings.check`'s `skill_problems`
 * (docs/skills.md).
 * `attachments`: turn.start's `attachments` param (docs/turns.md, "Attachments").
 */
export const FIELD_CAPABILITIES = [
  "errors.recovery",
  "plans",
  "subagents",
  "turn.queue",
  "hooks",
  "skills",
  "attachments",
] as const;

/** Every capability name: those the method and notification tables use, and the field ones. */
export type Capability =
  | Exclude<RequestCapability | NotificationCapability, null>
  | (typeof FIELD_CAPABILITIES)[number];

function collect(): Capability[] {
  const names = new Set<Capability>();
  for (const name of PUBLIC_METHOD_NAMES) {
    const capability = (METHODS[name] as MethodSpec).capability;
    if (capability) names.add(capability as Capability);
  }
  for (const spec of Object.values(NOTIFICATIONS) as NotificationSpec[])
    names.add(spec.capability as Capability);
  for (const name of FIELD_CAPABILITIES) names.add(name);
  return [...names];
}

/** Every capability of this protocol, derived from the tables, in table order. */
export const CAPABILITIES: readonly Capability[] = Object.freeze(collect());

/**
 * Our capabilities that carry no parameter object (docs/extensions.md fixes them): the
 * extension table cannot say whose they are, so they are named here.
 */
const OURS_WITHOUT_PARAMETERS: readonly string[] = [
  "model.cached",
  "settings.check",
  "workspace.trust",
  "session.record",
  "mcp",
  "session.fork",
  "session.search",
  "turn.revert",
  "errors.recovery",
  "plans",
  "subagents",
  "turn.steer",
  "turn.queue",
  "hooks",
  "session.manage",
  "skills",
  "commands",
  "attachments",
];

/**
 * The seed contract's capabilities (the base and its four extensions), without ours: a child
 * that implements the seed alone is still complete for the seed's conformance cases.
 */
export const SEED_CAPABILITIES: readonly Capability[] = Object.freeze(
  CAPABILITIES.filter(
    (name) =>
      !OURS_WITHOUT_PARAMETERS.includes(name) &&
      (!(EXTENSION_NAMES as readonly string[]).includes(name) ||
        EXTENSION_SPECS[name as ExtensionName].contract === "seed"),
  ),
);

export function isCapability(name: string): name is Capability {
  return (CAPABILITIES as readonly string[]).includes(name);
}

/** The parameter object a negotiated extension advertises in `initialize.extensions`, if any. */
export function extensionParameters(name: Capability): object | undefined {
  return (EXTENSION_NAMES as readonly string[]).includes(name)
    ? EXTENSION_SPECS[name as ExtensionName].parameters
    : undefined;
}

/** The request methods a capability makes callable (public ones only). */
export function methodsOf(capability: Capability): (keyof typeof METHODS)[] {
  return PUBLIC_METHOD_NAMES.filter((name) => METHODS[name].capability === capability);
}

// Compile-time check: every extension in the extension table is a capability of the tables.
const extensionsAreCapabilities: Exclude<ExtensionName, Capability> extends never ? true : never =
  true;
void extensionsAreCapabilities;

/**
 * What a turn-driving frontend negotiates: the session methods a conversation uses, the catalog,
 * cancel and turns. The conformance kit's turn cases and each ACP session's in-process engine
 * negotiate exactly this.
 */
export const TURN_FRONTEND_CAPABILITIES: readonly Capability[] = Object.freeze([
  "session.list",
  "session.create",
  "session.open",
  "session.history",
  "model.catalog",
  "model.select",
  "operation.cancel",
  "turn",
]);
