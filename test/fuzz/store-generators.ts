import fc from "fast-check";

/**
 * Generators of MC_HOME contents for the fuzzer: histories (valid events, foreign and aliased
 * cwds, blank lines, bad JSON, invalid UTF-8, subagent and archive names, locks), settings,
 * catalog caches and credentials, each right, nearly right or garbage. Every store carries
 * canaries: the credential canary must never appear in any frame, the history canary never in
 * an error message.
 */
export const CREDENTIAL_CANARY = "sk-fuzz-CANARY-7f3a";
export const HISTORY_CANARY = "HISTORY-CANARY-2c9d";

export interface StoreFile {
  /** Path relative to MC_HOME. */
  path: string;
  bytes: Uint8Array;
}

const ts = fc
  .integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 })
  .map((ms) => new Date(ms).toISOString());

/** One history record, for a workspace at `cwd`. */
function event(cwd: string, clean: boolean): fc.Arbitrary<string> {
  const cwdField = clean
    ? fc.constant(cwd)
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant(cwd) },
        { weight: 1, arbitrary: fc.constant(`${cwd}/../workspace`) },
        { weight: 1, arbitrary: fc.constant("/elsewhere/app") },
        { weight: 1, arbitrary: fc.constant("") },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
  const body = fc.oneof(
    fc.constant({ type: "session_meta" }),
    fc.string({ maxLength: 30 }).map((t) => ({ type: "title", title: t })),
    fc
      .string({ maxLength: 60 })
      .map((t) => ({ type: "user_message", text: `${HISTORY_CANARY} ${t}` })),
    fc.constant({ type: "assistant_message", text: HISTORY_CANARY, model: "demo/demo-1" }),
    fc.constantFrom("plan", "build").map((mode) => ({ type: "mode", mode })),
    fc.constant({ type: "model", model: "demo/demo-1", effort: "high" }),
    fc.string({ maxLength: 10 }).map((type) => ({ type })),
  );
  return fc
    .tuple(body, ts, cwdField)
    .map(([b, t, c]) =>
      JSON.stringify(c === undefined ? { ...b, ts: t } : { ...b, ts: t, cwd: c }),
    );
}

const badLine = fc.oneof(
  fc.constant(""),
  fc.constant("[1,2]"),
  fc.constant('{"type":"title"'),
  fc.constant('{"type":1,"ts":"x"}'),
  fc.constant("\xff\xfe"),
);

function history(cwd: string): fc.Arbitrary<Uint8Array> {
  return fc.oneof(cleanHistory(cwd), messyHistory(cwd));
}

/** Every record valid and of this workspace: openable, readable page by page. */
function cleanHistory(cwd: string): fc.Arbitrary<Uint8Array> {
  return fc
    .array(event(cwd, true), { minLength: 1, maxLength: 150 })
    .map((lines) => new TextEncoder().encode(`${lines.join("\n")}\n`));
}

function messyHistory(cwd: string): fc.Arbitrary<Uint8Array> {
  return fc
    .tuple(
      fc.array(
        fc.oneof({ weight: 8, arbitrary: event(cwd, false) }, { weight: 1, arbitrary: badLine }),
        { maxLength: 12 },
      ),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([lines, trailingLf, invalidUtf8]) => {
      const text = lines.join("\n") + (trailingLf && lines.length > 0 ? "\n" : "");
      const bytes = new TextEncoder().encode(text);
      return invalidUtf8 ? Uint8Array.from([...bytes, 0xc3, 0x28]) : bytes;
    });
}

/** Most histories use IDs from a small pool that the frame generator also asks for. */
export const SESSION_ID_POOL = ["s1", "s2", "s3", "a", "b-1", "Z_9"];

const historyName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SESSION_ID_POOL).map((id) => `${id}.jsonl`) },
  {
    weight: 2,
    arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,12}$/).map((id) => `${id}.jsonl`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "s1.sub-agent.jsonl",
      "archive/s9.jsonl",
      ".hidden.jsonl",
      "bad name.jsonl",
    ),
  },
);

const lockFile = fc
  .tuple(fc.integer({ min: 1, max: 99999 }), ts)
  .map(([pid, at]) => JSON.stringify({ pid, renewed_at: at }));

const text = (s: string) => new TextEncoder().encode(s);

const settings: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.constant(
    text(
      JSON.stringify({
        providers: {
          demo: {
            type: "openai-compatible",
            base_url: "http://127.0.0.1:9/v1",
            api_key_env: "FUZZ_KEY",
          },
          openai: { base_url: "http://127.0.0.1:9/v1" },
          anthropic: { base_url: "http://127.0.0.1:9/v1" },
          codex: { base_url: "http://127.0.0.1:9/v1", token_url: "http://127.0.0.1:9/token" },
        },
        enabled_models: ["demo/demo-1", "openai/gpt-x"],
        model: "demo/demo-1",
        effort: "medium",
        models_dev_url: "http://127.0.0.1:9/api.json",
      }),
    ),
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => text(JSON.stringify(v))),
  fc.constant(text("{not json")),
);

const cacheFile: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.array(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), { maxLength: 5 }).map((ids) =>
    text(
      JSON.stringify({
        format: "mc-model-cache",
        version: 1,
        provider: "demo",
        fingerprint: "0".repeat(64),
        fetched_at: "2026-11-29T10:00:00.000Z",
        models: ids.map((id) => ({
          id,
          name: id,
          context_window: 128000,
          efforts: ["low", "medium", "high"],
          default_effort: "medium",
        })),
      }),
    ),
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => text(JSON.stringify(v))),
  fc.constant(text("")),
);

const credentials: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.constant(
    text(
      JSON.stringify({
        demo: { type: "api_key", key: CREDENTIAL_CANARY },
        codex: {
          type: "oauth",
          access_token: CREDENTIAL_CANARY,
          refresh_token: `${CREDENTIAL_CANARY}-r`,
          expires_at: "2020-01-01T00:00:00.000Z",
        },
      }),
    ),
  ),
  fc.constant(text(`{"demo": "${CREDENTIAL_CANARY}"`)),
);

/** A whole MC_HOME for a workspace whose canonical path is `cwd`. */
export function store(cwd: string): fc.Arbitrary<StoreFile[]> {
  return fc
    .record({
      histories: fc.uniqueArray(fc.tuple(historyName, history(cwd)), {
        maxLength: 8,
        selector: ([name]) => name,
      }),
      locks: fc.subarray(["s1", "s2", "a"]),
      lock: lockFile,
      settings: fc.option(settings, { nil: undefined }),
      cache: fc.option(cacheFile, { nil: undefined }),
      auth: fc.option(credentials, { nil: undefined }),
    })
    .map((s) => {
      const files: StoreFile[] = s.histories.map(([name, bytes]) => ({
        path: `sessions/${name}`,
        bytes,
      }));
      for (const id of s.locks) files.push({ path: `sessions/${id}.lock`, bytes: text(s.lock) });
      if (s.settings) files.push({ path: "config.json", bytes: s.settings });
      if (s.cache) files.push({ path: "cache/models/demo.json", bytes: s.cache });
      if (s.auth) files.push({ path: "auth.json", bytes: s.auth });
      return files;
    });
}
