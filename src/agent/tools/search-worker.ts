/**
 * The thread a search runs in. A regular expression from the model can backtrack for minutes
 * (`(a+)+$`); on the protocol loop that would stall interrupts, status and shutdown. Here it
 * only costs a thread, which the tool terminates on abort or past its time bound.
 */

import { parentPort, workerData } from "node:worker_threads";
import ignore from "ignore";
import { searchFrom } from "./search-walk.js";
import type { WorkspacePath } from "./workspace-path.js";

export interface SearchJob {
  workspace: string;
  root: WorkspacePath;
  source: string;
  flags: string;
  glob: string | null;
}

export type SearchReply =
  | { ok: true; matches: string[]; more: boolean }
  | { ok: false; message: string };

async function run(job: SearchJob): Promise<SearchReply> {
  try {
    const glob = job.glob === null ? null : ignore().add(job.glob);
    const regex = new RegExp(job.source, job.flags);
    const found = await searchFrom(job.workspace, job.root, regex, glob);
    return { ok: true, ...found };
  } catch (error) {
    // ToolErrors carry messages meant for the model; anything else says nothing specific.
    const message =
      error instanceof Error && error.name === "ToolError" ? error.message : "search failed";
    return { ok: false, message };
  }
}

if (parentPort && workerData) {
  const port = parentPort;
  void run(workerData as SearchJob).then((reply) => port.postMessage(reply));
}
