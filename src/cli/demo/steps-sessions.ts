import { isRemote, type SessionEntry } from "../../client/index.js";
import { shortTime } from "../commands/format.js";
import { type DemoContext, heading, offers, say } from "./context.js";

/** Step 2: browse with session.discover to validated completion, then exact open. */
export async function browseSessions(ctx: DemoContext): Promise<void> {
  const { term, client } = ctx;
  heading(term, 2, "Browse sessions, then open one exactly");
  say(
    term,
    "The frontend follows session.discover's single-use cursors, empty progress pages included,\nuntil the backend validates the complete inventory. Rows are provisional until then.",
  );
  if (!offers(ctx, ["session.discover"], "browsing")) return;
  let steps = 0;
  const result = await client.discoverSessions({
    onProgress: (event) => {
      if (event.kind === "page") {
        steps = event.pages;
        term.status(
          `  discovering… ${event.provisional.length} provisional rows (${event.progress})`,
        );
      } else term.line(term.yellow(`  restarting discovery: ${event.reason}`));
    },
  });
  term.clearStatus();
  term.line(
    `  Validated after ${steps} steps: ${result.sessions.length} sessions for this folder.`,
  );
  for (const s of result.sessions) term.line(`    ${describe(s)}`);
  for (const n of result.notices)
    term.line(
      n.code === "cwd_unverified"
        ? `    ${n.count} legacy history without a recorded folder (marked "?")`
        : `    ${n.count} invalid or unsafe history left out (the demo wrote one that is not JSON)`,
    );
  say(term, "Left out as they must be: the other folder's session, the subagent history.");
  await openExactly(ctx, result.sessions);
}

function describe(s: SessionEntry): string {
  const marks = [s.cwd === "unverified" ? "?" : "", s.busy ? "busy" : ""].filter(Boolean).join(" ");
  return `${s.id.padEnd(16)} ${(s.title ?? "(untitled)").padEnd(48)} ${shortTime(s.updated_at)} ${marks}`.trimEnd();
}

async function openExactly(ctx: DemoContext, sessions: SessionEntry[]): Promise<void> {
  const { term, client, fixture } = ctx;
  if (!offers(ctx, ["session.open", "session.history"], "exact open")) return;
  const chosen = sessions.find((s) => s.id === fixture.ids.first) ?? sessions[0];
  if (!chosen) return;
  say(
    term,
    `The user picks "${chosen.id}". The frontend opens that exact ID (never replays input):`,
  );
  const opened = await client.open(chosen.id);
  term.line(`  session.open → attached "${opened.id}" (${opened.title ?? "untitled"})`);
  let events = 0;
  for await (const page of client.history(chosen.id)) events += page.length;
  term.line(`  session.history → ${events} events, read page by page`);
  say(term, `Opening another folder's session by ID is refused, and the attachment stays:`);
  try {
    await client.open(fixture.ids.foreign);
    term.line(term.red("  unexpected: the other folder's session opened"));
  } catch (error) {
    if (!isRemote(error, "cwd_mismatch") && !isRemote(error, "session_missing")) throw error;
    term.line(`  session.open("${fixture.ids.foreign}") → ${error.code}`);
  }
  const status = await client.call("status", {});
  term.line(`  status.attachment → ${status.attachment?.session_id ?? "none"}`);
}
