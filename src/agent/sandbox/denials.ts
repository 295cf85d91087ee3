/**
 * Tells from a sandboxed command's output whether the sandbox blocked it, so that one line can
 * say what the sandbox forbids and the model can adapt (docs/tools.md, "When the sandbox blocks
 * a command"). The errors are the ones the OS gives a blocked program: a write under a
 * read-only mount, a connect without a network.
 */
import type { SandboxKind } from "./probe.js";

type Denial = "write" | "network";

const WRITE_ERRORS: Record<SandboxKind, RegExp> = {
  bubblewrap: /Read-only file system|EROFS/,
  // Seatbelt refuses with EPERM rather than EROFS.
  seatbelt: /Operation not permitted|EPERM/,
};

const NETWORK_ERRORS =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|EAI_AGAIN|getaddrinfo ENOTFOUND|Connection refused|ECONNREFUSED/;

/** The longest note (both parts) with its line break fits in this many bytes. */
export const DENIAL_NOTE_BYTES = 256;

/** Output is scanned across chunk boundaries with this much of the previous chunk kept. */
const CARRY_CHARS = 64;

export class DenialScan {
  private readonly seen = new Set<Denial>();
  private carry = "";

  constructor(
    private readonly kind: SandboxKind,
    private readonly network: boolean,
  ) {}

  push(text: string): void {
    const window = this.carry + text;
    if (WRITE_ERRORS[this.kind].test(window)) this.seen.add("write");
    if (!this.network && NETWORK_ERRORS.test(window)) this.seen.add("network");
    this.carry = window.slice(-CARRY_CHARS);
  }

  /** The line for the model, or null when nothing the sandbox forbids showed. */
  note(): string | null {
    if (this.seen.size === 0) return null;
    const parts: string[] = [];
    if (this.seen.has("write"))
      parts.push("only the workspace (not its .git/ and .mc/) and a private /tmp are writable");
    if (this.seen.has("network")) parts.push("there is no network, not even to localhost");
    return (
      `[sandbox: ${parts.join("; ")}. If the command must do that, call shell again with ` +
      `"sandbox": false, which asks the user first]`
    );
  }
}
