import assert from "node:assert/strict";
import type { Sandbox, TestChild } from "../helpers/child.js";

/**
 * Put in every error body a test server sends: no frame may ever repeat it, except a failed
 * turn result's `provider_message`, which carries the provider's own words by design (redacted:
 * it is still checked for everything else forbidden).
 */
export const BODY_MARKER = "Upstream-Body-Marker 9QX!";

/** The strings no frame may carry: the server's URL and host:port, the key, bodies, paths. */
export function forbiddenOf(
  box: Sandbox,
  urls: string[],
  secrets: string[],
  extra: string[] = [],
): string[] {
  const hosts = urls.map((url) => new URL(url).host);
  return [...urls, ...hosts, ...secrets, BODY_MARKER, box.root, box.home, box.workspace, ...extra];
}

/** Answers that carry the workspace by design (a history's `session_meta`, `status.cwd`). */
const NAMES_THE_WORKSPACE = new Set(["session.history", "status"]);

/**
 * Nothing forbidden in any line the child wrote to stdout (every frame, whatever its kind), and
 * no secret in its stderr. The offending line is not printed whole: it would show the secret.
 * Answers that name the workspace by design are still checked for everything but paths.
 */
export function assertNothingLeaked(
  child: TestChild,
  forbidden: string[],
  secrets: string[] = [],
): void {
  const paths = [child.options.home, child.options.cwd];
  const exempt = new Set(
    child.sent.filter((r) => NAMES_THE_WORKSPACE.has(r.method ?? "")).map((r) => r.id),
  );
  for (const [index, raw] of child.rawLines.entries()) {
    const names = exempt.has(idOf(raw) ?? "");
    const { line, said } = providerMessageApart(raw);
    for (const word of forbidden) {
      if (names && paths.some((path) => path.startsWith(word) || word.startsWith(path))) continue;
      assert.ok(!line.includes(word), `stdout line ${index} carries "${word}"`);
      if (word !== BODY_MARKER)
        assert.ok(!said.includes(word), `line ${index}'s provider_message carries "${word}"`);
    }
  }
  for (const secret of secrets)
    assert.ok(!child.stderr.includes(secret), "stderr carries a secret");
  assert.ok(!child.stderr.includes(BODY_MARKER), "stderr carries a body the server sent");
}

/** A frame with its turn result's `provider_message` taken out, and that message ("" if none). */
function providerMessageApart(line: string): { line: string; said: string } {
  try {
    const frame = JSON.parse(line) as { result?: { error?: { provider_message?: unknown } } };
    const error = frame.result?.error;
    if (typeof error?.provider_message !== "string") return { line, said: "" };
    const said = error.provider_message;
    delete error.provider_message;
    return { line: JSON.stringify(frame), said };
  } catch {
    return { line, said: "" };
  }
}

function idOf(line: string): string | null {
  try {
    const id = (JSON.parse(line) as { id?: unknown }).id;
    return typeof id === "string" ? id : null;
  } catch {
    return null;
  }
}
