import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "../../src/conformance/frame.js";
import { type Sandbox, sandbox, TestChild } from "../../src/conformance/harness.js";
import {
  snapshotDiff as diff,
  homeSnapshot as snapshot,
} from "../../src/conformance/home-snapshot.js";
import { type Loopback, pathOf, sendJson, startLoopback } from "../../src/conformance/loopback.js";
import {
  codexAuthPath,
  DEMO_KEY,
  fileMode,
  PROVIDER_ENV,
  REFRESH_CAPABILITIES,
  readCache,
  writeExpiredCodexAuth,
  writeProviderHome,
} from "../../src/conformance/provider-home.js";
import { auditWire } from "../../src/conformance/wire-audit.js";
import { fuzzCommand } from "./fuzz-driver.js";
import { BODY_CANARY, type ProviderAnswer, type RefreshCase } from "./provider-generators.js";

/**
 * The refresh fuzzer's world: one loopback provider whose answers the current case sets, one
 * MC_HOME wired to it, and a child replaced every 500 refreshes. `refresh` runs one case and
 * checks every invariant that must hold after it.
 */
const REJECTIONS = ["refresh_token_reused", "refresh_token_expired", "refresh_token_invalidated"];
/** What a refresh of each provider may change under MC_HOME (snapshot rows start with paths). */
const MAY_CHANGE: Record<string, RegExp> = {
  demo: /^(cache|cache\/models|cache\/models\/demo\.json) /,
  codex: /^(cache|cache\/models|cache\/models\/codex\.json|no-codex|no-codex\/auth\.json) /,
};

export class RefreshFuzzWorld {
  readonly outcomes = new Map<string, number>();
  private current: RefreshCase = { provider: "demo", demo: { status: 200, body: Buffer.alloc(0) } };
  private child: TestChild | null = null;
  private refreshes = 0;

  private constructor(
    private readonly server: Loopback,
    private readonly box: Sandbox,
  ) {}

  static async start(): Promise<RefreshFuzzWorld> {
    let world: RefreshFuzzWorld | null = null;
    const server = await startLoopback((request, response) => {
      const answer = world?.answerFor(pathOf(request));
      if (!answer) return sendJson(response, 200, {});
      response.writeHead(answer.status, {
        "content-type": "application/json",
        "content-length": answer.body.length,
      });
      response.end(answer.body);
    });
    const box = sandbox("mc-fuzz-refresh-");
    writeProviderHome(box, server.origin);
    writeExpiredCodexAuth(box);
    world = new RefreshFuzzWorld(server, box);
    return world;
  }

  private answerFor(path: string): ProviderAnswer | undefined {
    const c = this.current;
    if (c.provider === "demo") return path === "/v1/models" ? c.demo : undefined;
    if (path === "/oauth/token") return c.token;
    return path === "/codex/models" ? c.codex : undefined;
  }

  /** Runs one refresh (with odd params now and then) and checks every invariant after it. */
  async refresh(c: RefreshCase, oddParams: Record<string, unknown> | null): Promise<void> {
    const child = await this.liveChild();
    this.current = c;
    if (c.provider === "codex") writeExpiredCodexAuth(this.box);
    const before = snapshot(this.box.home);
    const cacheBefore = readCache(this.box, c.provider);
    const authBefore = readFileSync(codexAuthPath(this.box));
    const params = oddParams ?? { provider: c.provider };
    const frame = await child.request("model.refresh", params, undefined, 60_000);
    this.count(frame);
    this.checkFrame(child, frame);
    if (frame.result?.outcome === "refreshed") this.checkWholeCache(c.provider);
    else assert.deepEqual(readCache(this.box, c.provider), cacheBefore, "failure kept the cache");
    if (c.provider === "codex") this.checkCredentials(c, frame, authBefore, oddParams === null);
    const changed = diff(before, snapshot(this.box.home)).filter(
      (row) => !(MAY_CHANGE[c.provider] as RegExp).test(row.slice(2)),
    );
    assert.deepEqual(changed, [], "nothing else under MC_HOME changed");
    this.checkNoLeftovers();
  }

  private async liveChild(): Promise<TestChild> {
    if (this.child && this.refreshes++ % 500 !== 0) return this.child;
    await this.child?.close();
    const child = new TestChild({
      cwd: this.box.workspace,
      home: this.box.home,
      env: PROVIDER_ENV,
      ...fuzzCommand(),
    });
    const init = await child.initialize(REFRESH_CAPABILITIES);
    assert.ok(init.result, JSON.stringify(init.error));
    this.child = child;
    return child;
  }

  private count(frame: Frame): void {
    const key = `${this.current.provider} ${frame.result?.reason ?? frame.result?.outcome ?? frame.error?.code}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
  }

  private checkFrame(child: TestChild, frame: Frame): void {
    const problems = auditWire({
      sent: child.sent.slice(-1),
      received: [frame],
      forbidden: [this.box.root, BODY_CANARY, "http"],
      secrets: [DEMO_KEY, BODY_CANARY, "rt-old"],
    });
    assert.deepEqual(problems, []);
  }

  private checkWholeCache(provider: string): void {
    const cache = JSON.parse(String(readCache(this.box, provider))) as { models: { id: string }[] };
    const ids = cache.models.map((m) => m.id);
    assert.ok(ids.length > 0, "a refreshed cache is not empty");
    assert.equal(new Set(ids).size, ids.length, "cache IDs are unique");
  }

  /** Renewed credentials are the token endpoint's, whole, 0600; a rejection maps as issue 6 says. */
  private checkCredentials(
    c: Extract<RefreshCase, { provider: "codex" }>,
    frame: Frame,
    authBefore: Buffer,
    ranRefresh: boolean,
  ): void {
    const path = codexAuthPath(this.box);
    const now = readFileSync(path);
    if (!now.equals(authBefore)) {
      const sent = JSON.parse(c.token.body.toString()) as Record<string, string>;
      const { tokens } = JSON.parse(now.toString()) as { tokens: Record<string, string> };
      assert.equal(tokens.access_token, sent.access_token, "the renewed access token");
      assert.equal(tokens.refresh_token, sent.refresh_token ?? "rt-old", "the renewed pair");
      assert.equal(fileMode(path), 0o600, "credentials stay 0600");
    }
    const error = bodyError(c.token.body);
    if (ranRefresh && (c.token.status === 401 || REJECTIONS.includes(error))) {
      assert.equal(frame.result?.reason, "authentication_rejected", JSON.stringify(frame));
    }
  }

  private checkNoLeftovers(): void {
    for (const folder of ["cache/models", "no-codex"]) {
      const full = join(this.box.home, folder);
      const stray = existsSync(full) ? readdirSync(full).filter((n) => n.endsWith(".tmp")) : [];
      assert.deepEqual(stray, [], `no temporary files left in ${folder}`);
    }
  }

  async close(): Promise<void> {
    await this.child?.close();
    await this.server.close();
    this.box.cleanup();
  }
}

function bodyError(body: Buffer): string {
  try {
    const value = JSON.parse(body.toString()) as { error?: unknown };
    return typeof value.error === "string" ? value.error : "";
  } catch {
    return "";
  }
}
