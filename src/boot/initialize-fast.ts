import { LIMITS, PROTOCOL_VERSION, SERVER_INFO } from "../protocol/constants.js";
import { isPlainObject } from "../protocol/envelope.js";

/**
 * An `initialize` answered without zod and before the rest of the child has loaded
 * (src/boot/starter.ts; docs/local-agent-protocol.md, "Fast start"). No I/O and no schema: a hand check
 * that accepts only requests the full child would also accept, with a result byte for byte the
 * full child's. Whatever it does not accept (a wrong version, a bad field, a duplicate, a
 * capability whose parameters the child must find out first, such as `turn`'s sandbox) is
 * answered by the full child, with its own result or error: this check never refuses anything.
 * Such a capability is answered here only with `extras`, what the starter found out for it
 * (starter.ts, src/server/turn-facts.ts), merged into its parameters as the child merges its own.
 * test/boot/fast-start.test.ts holds both paths to the same bytes on generated requests.
 */

/** What the answer is built from: the protocol's tables, read when the child was built. */
export interface InitializeFacts {
  /** Every capability, in table order (src/protocol/capabilities.ts). */
  capabilities: readonly string[];
  /** Each extension's parameter object, in the order of the `extensions` schema's keys. */
  extensions: readonly (readonly [string, object])[];
  /** Capabilities whose parameters wait for what the child finds out (`extensionPending`). */
  foundOut: readonly string[];
  /** Each of those's parameter keys in its schema's order, where the child writes them. */
  keyOrders: readonly (readonly [string, readonly string[]])[];
}

const PARAMS_KEYS = ["protocol_version", "client", "required_capabilities"];
const CLIENT_KEYS = ["name", "version"];
/** The schema's bounds (src/protocol/schemas/lifecycle.ts `InitializeParams`). */
const TEXT_MAX = 256;
const CAPABILITIES_MAX = 64;

/**
 * The initialize result line (with its LF) for a request this check accepts, or null: the full
 * child then answers it. `id` was checked by the envelope (a request ID).
 */
export function fastInitializeLine(
  id: string,
  params: unknown,
  facts: InitializeFacts,
  extras: Record<string, object> = {},
): string | null {
  const requested = acceptedCapabilities(params, facts, extras);
  if (requested === null) return null;
  const negotiated = facts.capabilities.filter((name) => requested.has(name));
  const extensions: Record<string, object> = {};
  for (const [name, parameters] of facts.extensions) {
    if (!requested.has(name)) continue;
    // As src/server/lifecycle.ts: the found-out values over the parameters, the keys then in
    // the order the child's result schema writes them.
    const extra = Object.hasOwn(extras, name) ? extras[name] : undefined;
    extensions[name] = extra
      ? inOrder({ ...parameters, ...extra }, keyOrder(facts, name))
      : parameters;
  }
  return `${JSON.stringify({ id, result: initializeResultOf(negotiated, extensions) })}\n`;
}

/**
 * The initialize result for a negotiated set and its extensions' parameter objects: the one
 * shape both the starter and the full child (src/server/lifecycle.ts) answer with.
 */
export function initializeResultOf(
  negotiated: readonly string[],
  extensions: Record<string, object>,
) {
  return {
    protocol_version: PROTOCOL_VERSION,
    server: { ...SERVER_INFO },
    capabilities: [...negotiated].sort(),
    limits: { ...LIMITS },
    extensions,
  };
}

/** The requested capabilities when the whole request is one the full child accepts as is. */
function acceptedCapabilities(
  params: unknown,
  facts: InitializeFacts,
  extras: Record<string, object>,
): Set<string> | null {
  if (!hasExactly(params, PARAMS_KEYS)) return null;
  if (params.protocol_version !== PROTOCOL_VERSION) return null;
  const client = params.client;
  if (!hasExactly(client, CLIENT_KEYS) || !isText(client.name) || !isText(client.version))
    return null;
  const list = params.required_capabilities;
  if (!Array.isArray(list) || list.length > CAPABILITIES_MAX) return null;
  const requested = new Set<string>();
  for (const name of list) {
    if (typeof name !== "string" || requested.has(name)) return null;
    if (!facts.capabilities.includes(name)) return null;
    if (facts.foundOut.includes(name) && !Object.hasOwn(extras, name)) return null;
    requested.add(name);
  }
  return requested;
}

function keyOrder(facts: InitializeFacts, name: string): readonly string[] {
  return facts.keyOrders.find(([known]) => known === name)?.[1] ?? [];
}

/** `value` with the keys of `order` first, in that order, then any others as they were. */
function inOrder(value: Record<string, unknown>, order: readonly string[]): object {
  const ordered: Record<string, unknown> = {};
  for (const key of order) if (Object.hasOwn(value, key)) ordered[key] = value[key];
  for (const [key, item] of Object.entries(value))
    if (!Object.hasOwn(ordered, key)) ordered[key] = item;
  return ordered;
}

function hasExactly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value.length >= 1 && value.length <= TEXT_MAX;
}
