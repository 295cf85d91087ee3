import type { ResultOf } from "../../src/protocol/methods.js";
import { type ChildOptions, type Sandbox, sandbox, startReady, type TestChild } from "./child.js";

/** The capabilities of the sessions domain (what these tests negotiate). */
export const SESSION_CAPS = [
  "session.list",
  "session.create",
  "session.open",
  "session.history",
  "session.record",
  "session.discover",
  "operation.cancel",
];

export function startSessions(box: Sandbox, extra: Partial<ChildOptions> = {}): Promise<TestChild> {
  return startReady(box, SESSION_CAPS, extra);
}

/** Runs `body` with a fresh sandbox, cleaned up (and its child closed) whatever happens. */
export async function inSandbox(
  body: (box: Sandbox, children: TestChild[]) => Promise<void>,
): Promise<void> {
  const box = sandbox();
  const children: TestChild[] = [];
  try {
    await body(box, children);
  } finally {
    for (const child of children) await child.close();
    box.cleanup();
  }
}

export type Listing = ResultOf<"session.list">;
export type DiscoverPage = ResultOf<"session.discover">;

export async function listAll(child: TestChild): Promise<{ pages: Listing[]; ids: string[] }> {
  const pages: Listing[] = [];
  let page = await child.call("session.list", {});
  pages.push(page);
  while (page.cursor !== null) {
    page = await child.call("session.list", { cursor: page.cursor });
    pages.push(page);
  }
  return { pages, ids: pages.flatMap((p) => p.sessions.map((s) => s.id)) };
}

/** Follows discovery cursors to the end (or an error); bounded by `maxSteps`. */
export async function discoverAll(
  child: TestChild,
  maxSteps = 10_000,
): Promise<{ pages: DiscoverPage[]; ids: string[]; error: string | null }> {
  const pages: DiscoverPage[] = [];
  let cursor: string | undefined;
  for (let step = 0; step < maxSteps; step += 1) {
    const frame = await child.request("session.discover", cursor === undefined ? {} : { cursor });
    if (frame.error) return { pages, ids: idsOf(pages), error: frame.error.code };
    const page = frame.result as DiscoverPage;
    pages.push(page);
    if (page.cursor === null) return { pages, ids: idsOf(pages), error: null };
    cursor = page.cursor;
  }
  throw new Error("discovery did not finish within the step bound");
}

function idsOf(pages: DiscoverPage[]): string[] {
  return pages.flatMap((p) => p.sessions.map((s) => s.id));
}
