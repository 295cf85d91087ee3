import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { delay, within } from "../expect.js";
import type { TestChild } from "../harness.js";
import { pathOf, type Route, sendJson } from "../loopback.js";
import {
  codexAuthPath,
  codexModels,
  fileMode,
  manyModelIds,
  openAiModels,
  readCache,
  renewedTokens,
  writeExpiredCodexAuth,
} from "../provider-home.js";
import { seededRandom } from "../random.js";
import { refreshOk, startRefresh, withRefreshWorld } from "../refresh-world.js";

/**
 * kill -9 at random moments of a refresh and of a credential renewal: whatever the moment, the
 * cache and the credential file hold either their old or their new complete contents, never a
 * torn or mixed one. The moments come from a seeded generator (MC_FUZZ_SEED replays them).
 */
const KILLS = 12;
const MODELS = 1500;

/** Kills the child at a random moment after the refresh was sent, and waits for it to die. */
async function killDuring(child: TestChild, provider: string, atMs: number): Promise<void> {
  startRefresh(child, provider);
  await delay(atMs);
  child.kill("SIGKILL");
  await within(child.exited, 5000, "killed child exit");
}

/** The cache is absent, or one of the two complete catalogs the server handed out. */
function assertWholeCache(bytes: Buffer | null, where: string): void {
  if (bytes === null) return;
  let cache: { format?: string; models?: { id: string }[] };
  try {
    cache = JSON.parse(bytes.toString("utf8"));
  } catch {
    assert.fail(`${where}: the cache is torn (not JSON, ${bytes.length} bytes)`);
  }
  assert.equal(cache.format, "mc-model-cache", `${where}: cache format`);
  const ids = (cache.models ?? []).map((m) => m.id).filter((id) => id !== "demo-1");
  const tags = new Set(ids.map((id) => id.split("-")[0]));
  assert.equal(ids.length, MODELS, `${where}: a partial catalog (${ids.length} of ${MODELS})`);
  assert.equal(tags.size, 1, `${where}: a catalog mixing two refreshes`);
}

export const REFRESH_KILL_CASES: ConformanceCase[] = [
  {
    id: "faults.refresh.kill9.cache",
    tier: "MUST",
    clause:
      "extensions §Deliberate provider refresh: Refresh writes only a validated nonempty provider catalog ... through normal atomic persistence.",
    title: `kill -9 at ${KILLS} random moments of a refresh never leaves a torn cache`,
    async run(ctx) {
      const random = seededRandom();
      let listing = 0;
      const route: Route = async (request, response) => {
        if (pathOf(request) !== "/v1/models") return sendJson(response, 200, {});
        listing += 1;
        await delay(random.int(0, 15));
        const tag = listing % 2 === 0 ? "even" : "odd";
        sendJson(response, 200, openAiModels(["demo-1", ...manyModelIds(MODELS, tag)]));
      };
      await withRefreshWorld(ctx, route, async ({ child, respawn }) => {
        let current = child;
        for (let kill = 0; kill < KILLS; kill += 1) {
          const at = random.int(0, 80);
          await killDuring(current, "demo", at);
          assertWholeCache(
            readCache(ctx.box, "demo"),
            `seed ${random.seed}, kill ${kill} at ${at} ms`,
          );
          current = await respawn();
        }
        await refreshOk(current);
        assertWholeCache(readCache(ctx.box, "demo"), "after a completed refresh");
        const folder = readdirSync(join(ctx.box.home, "cache", "models"));
        assert.ok(folder.includes("demo.json"), "the completed refresh wrote the cache");
      });
    },
  },
  {
    id: "faults.refresh.kill9.credential_renewal",
    tier: "MUST",
    clause:
      "extensions §Deliberate provider refresh: Reuse backend provider/auth discovery, Codex credential refresh ... Normal credential refresh may persist renewed credentials (atomic, 0600: issue 6).",
    title: `kill -9 at ${KILLS} random moments of a Codex credential renewal never tears auth.json`,
    async run(ctx) {
      const random = seededRandom();
      const issued: string[] = [];
      const route: Route = async (request, response) => {
        if (pathOf(request) === "/oauth/token") {
          await delay(random.int(0, 20));
          const tokens = renewedTokens() as { access_token: string };
          issued.push(tokens.access_token);
          return sendJson(response, 200, tokens);
        }
        if (pathOf(request) === "/codex/models") {
          return sendJson(response, 200, codexModels(["gpt-x"]));
        }
        sendJson(response, 200, {});
      };
      const path = codexAuthPath(ctx.box);
      const check = (where: string) => {
        const file = JSON.parse(readFileSync(path, "utf8")) as {
          tokens: { access_token: string; refresh_token: string };
        };
        const { access_token, refresh_token } = file.tokens;
        const renewed = issued.includes(access_token);
        assert.equal(refresh_token, renewed ? "rt-new" : "rt-old", `${where}: a mixed token pair`);
        assert.equal(fileMode(path), 0o600, `${where}: credential file mode`);
      };
      await withRefreshWorld(
        ctx,
        route,
        async ({ child, server, respawn }) => {
          let current = child;
          for (let kill = 0; kill < KILLS; kill += 1) {
            writeExpiredCodexAuth(ctx.box);
            const at = random.int(0, 80);
            await killDuring(current, "codex", at);
            check(`seed ${random.seed}, kill ${kill} at ${at} ms`);
            current = await respawn();
          }
          writeExpiredCodexAuth(ctx.box);
          const before = server.countOf("/oauth/token");
          await refreshOk(current, "codex");
          assert.equal(server.countOf("/oauth/token"), before + 1, "one token exchange");
          check("after a completed renewal");
          const listing = server.requests.filter((r) => pathOf(r) === "/codex/models").at(-1);
          assert.equal(
            listing?.headers.authorization,
            `Bearer ${issued.at(-1)}`,
            "models fetched with the renewed bearer",
          );
        },
        () => writeExpiredCodexAuth(ctx.box),
      );
    },
  },
];
