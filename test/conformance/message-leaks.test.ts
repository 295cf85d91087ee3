import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { unsafeMessage } from "../../src/conformance/message-leaks.js";
import { DEFAULT_MESSAGES } from "../../src/protocol/codes.js";

/** The checker that keeps paths out of error messages: precise at its edges, both ways. */
describe("unsafeMessage", () => {
  const leak = (message: string, forbidden: string[] = []) => unsafeMessage(message, forbidden);

  test("paths in every form are refused", () => {
    for (const message of [
      "Cannot read /home/u/.mc",
      "Missing /x",
      "Not found: /etc.",
      "Start ./notes",
      "Start ../up",
      "Under ~/x",
      "Under ~ann/x",
      "On C:/x",
      "Cannot write a/b/c",
      "Cannot write home/.mc",
      "Cannot write (src/a/b).",
    ])
      assert.equal(leak(message), "a path", message);
  });

  test("a slash in prose is no path", () => {
    for (const message of [
      "Read and/or write.",
      "The read/write tools are off.",
      "ACP connection must be initialized before 'session/new'",
      "The model demo/demo-1 is not in the catalog.",
      "Either / or.",
      "Pick 1/2.",
      "A lone / at the end /",
    ])
      assert.equal(leak(message), null, message);
  });

  test("file names with their extensions are refused; dotted protocol names are not", () => {
    for (const message of [
      "Cannot read notes.txt",
      "Cannot read NOTES.TXT.",
      "Cannot read 'app.config.toml'",
      "The .env file",
      "Open src/engine.ts",
    ])
      assert.equal(leak(message), "a file name", message);
    for (const message of [
      "model.refresh is running.",
      "Negotiate session.discover first.",
      "Use a newer model, e.g. gpt-4.1.",
      "Version 1.2.3 of it.",
      "The workspace's .mc folder.",
      "The operation was cancelled.",
    ])
      assert.equal(leak(message), null, message);
  });

  test("URLs, backslashes, our store's files and forbidden words, anywhere", () => {
    assert.equal(leak("See https://example.invalid"), '"://"');
    assert.equal(leak("On C:\\x"), '"\\"');
    assert.equal(leak("On \\\\server\\share"), '"\\"');
    assert.equal(leak("Bad s1.jsonl"), '".jsonl"');
    assert.equal(leak("Bad config.json"), '".json"');
    assert.equal(leak("Held by s1.lock"), '".lock"');
    // A path to one of them is named as a path (the kit's report, test/conformance/kit.test.ts).
    assert.equal(leak("Cancelled (/tmp/x/sessions/s1.jsonl)"), "a path");
    assert.equal(leak("history says hello", ["hello"]), '"hello"');
    assert.equal(leak("history says hi", ["hello", ""]), null);
  });

  test("every default message of the protocol is safe", () => {
    for (const [code, message] of Object.entries(DEFAULT_MESSAGES))
      assert.equal(leak(message), null, `${code}: ${message}`);
  });
});
