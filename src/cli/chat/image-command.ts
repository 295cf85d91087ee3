/**
 * chat's `/image <file>` (docs/cli.md, "chat"): the image goes with the next message sent, and
 * `/image` alone says what is waiting (`/image clear` drops it). The file is only resolved
 * here; the child checks and reads it when the message is sent (docs/turns.md, "Attachments").
 */
import { resolve } from "node:path";
import { ATTACHMENT_LIMITS, type TurnAttachment } from "../../protocol/schemas/attachments.js";
import { type ChatState, note } from "./chat-state.js";

export function imageCommand(state: ChatState, arg: string): void {
  if (!state.client.has("attachments")) {
    note(state, "This backend does not take images (no attachments capability).", "33");
    return;
  }
  if (arg === "clear") {
    state.images = [];
    note(state, "No image waits for the next message.");
    return;
  }
  if (arg === "") {
    note(state, `${state.images.length} image(s) wait for the next message.`);
    return;
  }
  if (state.images.length >= ATTACHMENT_LIMITS.images) {
    note(state, `At most ${ATTACHMENT_LIMITS.images} images go with one message.`, "33");
    return;
  }
  state.images.push({ type: "image", path: resolve(arg) });
  note(state, `Image ${state.images.length} will go with your next message.`);
}

/** The images waiting, taken for the message being sent (none wait after it). */
export function takeImages(state: ChatState): TurnAttachment[] {
  const images = state.images;
  state.images = [];
  return images;
}
