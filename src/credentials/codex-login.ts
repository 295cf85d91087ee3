/**
 * A Codex login as a provider's model calls hold it: the credential as it now stands, renewed
 * ahead of expiry or on demand (a 401), one renewal at a time. Concurrent calls share it,
 * because the refresh token rotates: two renewals with the same one would lock the user out.
 * The rotated tokens are kept here for the next call, and written back by the renewal.
 */
import type { ExchangeBounds } from "../http/exchange.js";
import type { CredentialPaths } from "../store/credentials.js";
import { needsRenewal, renewCodexCredential } from "./codex-renewal.js";
import type { CodexCredential, ProviderAccess } from "./discovery.js";

/** A token that lives less than this is renewed before the call rather than fail mid-turn. */
const CODEX_EXPIRY_SKEW_MS = 60_000;

export class CodexLogin {
  private renewing: Promise<CodexCredential> | null = null;

  constructor(
    private credential: CodexCredential,
    private readonly provider: ProviderAccess,
    private readonly paths: CredentialPaths,
    private readonly log: (level: "warn", message: string) => void,
    private readonly bounds: ExchangeBounds,
  ) {}

  /** The credential as it now stands (a renewal's answer once one succeeded). */
  get current(): CodexCredential {
    return this.credential;
  }

  /** Whether the token has expired, or expires too soon for a call to start on it. */
  dueBeforeCall(): boolean {
    return needsRenewal(this.credential, Date.now() + CODEX_EXPIRY_SKEW_MS);
  }

  /** Renews now, or joins the renewal under way; rejects with the renewal's failure. */
  renew(): Promise<CodexCredential> {
    this.renewing ??= renewCodexCredential(
      this.credential,
      this.provider,
      this.paths,
      this.log,
      this.bounds,
    )
      .then((renewed) => {
        this.credential = renewed;
        return renewed;
      })
      .finally(() => {
        this.renewing = null;
      });
    return this.renewing;
  }
}
