/**
 * Whether an error message leaks where something is: a path, a file name, a URL, or one of
 * the caller's forbidden words (the workspace, the home, a secret). Error messages are short
 * fixed sentences; a slash in prose ("and/or", "read/write", a method such as `session/new`,
 * a model ID such as `demo/demo-1`) is none of these, but a path in any of its forms is.
 */

/** Written anywhere in a message, each is a leak: URLs and Windows paths (named first)... */
const ADDRESS_HINTS = ["://", "\\"];
/** ...and our store's files (named after a path that holds them). */
const STORE_HINTS = [".jsonl", ".json", ".lock"];

/** Extensions that make a word a file name (`notes.txt`), not a dotted protocol name. */
const FILE_EXTENSIONS = new Set(
  [
    "bak",
    "cfg",
    "cjs",
    "conf",
    "crt",
    "css",
    "csv",
    "db",
    "env",
    "gif",
    "go",
    "gz",
    "html",
    "ini",
    "java",
    "jpeg",
    "jpg",
    "js",
    "key",
    "log",
    "md",
    "mjs",
    "pdf",
    "pem",
    "png",
    "py",
    "rs",
    "sh",
    "sqlite",
    "svg",
    "tar",
    "tmp",
    "toml",
    "ts",
    "tsx",
    "txt",
    "webp",
    "xml",
    "yaml",
    "yml",
    "zip",
  ].map((ext) => `.${ext}`),
);

/** What `message` leaks ("a path", "a file name", or the hint or word found), or null. */
export function unsafeMessage(message: string, forbidden: readonly string[]): string | null {
  for (const hint of ADDRESS_HINTS) if (message.includes(hint)) return `"${hint}"`;
  // A path is named before the store's file hints: a path to a history also holds ".jsonl",
  // and "a path" is the finding a reader of the report acts on (the kit's report says so).
  const found = words(message);
  if (found.some(isPath)) return "a path";
  for (const hint of STORE_HINTS) if (message.includes(hint)) return `"${hint}"`;
  if (found.some(isFileName)) return "a file name";
  for (const word of forbidden) if (word && message.includes(word)) return `"${word}"`;
  return null;
}

/** The message's words: split at spaces, quotes and brackets, sentence punctuation dropped. */
function words(message: string): string[] {
  return message
    .split(/[\s"'`()[\]{}<>,;]+/)
    .map((word) => word.replace(/[.:!?]+$/, ""))
    .filter((word) => word !== "");
}

/**
 * `/abs/path`, `./rel`, `../up`, `~/x`, `~user/x`, `C:/x`; and a relative path that a word
 * is one only as a path: more than two parts (`a/b/c`), or a part that is a hidden name
 * (`home/.mc`). A lone `/` (a spaced "either / or") is prose.
 */
function isPath(word: string): boolean {
  if (/^\/./.test(word) || /^\.\.?\//.test(word) || /^~[\w.-]*\//.test(word)) return true;
  if (/^[A-Za-z]:\//.test(word)) return true;
  if (!word.includes("/")) return false;
  const parts = word.split("/");
  return parts.length > 2 || parts.some((part) => /^\.[^.]/.test(part));
}

/** `notes.txt`, `s1.jsonl`, `.env`: a name and an extension of a file. */
function isFileName(word: string): boolean {
  const name = word.slice(word.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot < 0 || !FILE_EXTENSIONS.has(name.slice(dot).toLowerCase())) return false;
  return dot > 0 ? /^[\w.-]+$/.test(name.slice(0, dot)) : true;
}
