import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  applyArgs,
  captureArgs,
  clipboardSource,
  describeApply,
  describePreview,
  editorSource,
  EditorState,
  errorSummary,
  isUnder,
  pendingStatusArgs,
  previewArgs,
  previewSource,
  retryPromptArgs,
  selectionSource,
  serverSettings,
} from "../src/args";

function editor(over: Partial<EditorState> = {}): EditorState {
  return {
    uri: "file:///ws/notes/response.md",
    scheme: "file",
    languageId: "markdown",
    text: "src/a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
    selection: "",
    ...over,
  };
}

describe("payload sources", () => {
  it("this editor: the document by URI, so the server reads the buffer", () => {
    assert.deepEqual(editorSource(editor()), { uri: "file:///ws/notes/response.md" });
    assert.equal(editorSource(editor({ text: " \n\t" })), undefined);
    assert.equal(editorSource(undefined), undefined);
  });

  it("selection: the selected text", () => {
    assert.deepEqual(selectionSource(editor({ selection: "abc" })), { payload: "abc" });
    assert.equal(selectionSource(editor({ selection: "  \n" })), undefined);
    assert.equal(selectionSource(undefined), undefined);
  });

  it("clipboard: its text, unless blank", () => {
    assert.deepEqual(clipboardSource("p"), { payload: "p" });
    assert.equal(clipboardSource(""), undefined);
    assert.equal(clipboardSource(undefined), undefined);
  });

  it("preview: selection, else a response document, else the clipboard", () => {
    assert.deepEqual(previewSource(editor({ selection: "sel" }), "clip"), { payload: "sel" });
    assert.deepEqual(previewSource(editor(), "clip"), { uri: "file:///ws/notes/response.md" });
    assert.deepEqual(previewSource(editor({ scheme: "untitled", languageId: "python", uri: "untitled:Untitled-1" }), "clip"), {
      uri: "untitled:Untitled-1",
    });
    assert.deepEqual(previewSource(editor({ languageId: "plaintext" }), "clip"), { uri: "file:///ws/notes/response.md" });
    // A source file is not a response: the clipboard.
    assert.deepEqual(previewSource(editor({ languageId: "rust", uri: "file:///ws/src/a.rs" }), "clip"), { payload: "clip" });
    assert.deepEqual(previewSource(editor({ text: "" }), "clip"), { payload: "clip" });
    assert.deepEqual(previewSource(undefined, "clip"), { payload: "clip" });
    assert.equal(previewSource(undefined, " "), undefined);
  });
});

describe("command arguments", () => {
  it("apply and retryPrompt pass the source as is", () => {
    assert.deepEqual(applyArgs({ payload: "p" }), { payload: "p" });
    assert.deepEqual(applyArgs({ uri: "untitled:Untitled-1" }), { uri: "untitled:Untitled-1" });
    assert.deepEqual(retryPromptArgs({ uri: "file:///ws/r.md" }), { uri: "file:///ws/r.md" });
  });

  it("preview asks for confirmation of every change", () => {
    assert.deepEqual(previewArgs({ payload: "p" }), { payload: "p", options: { confirm: true } });
    assert.deepEqual(previewArgs({ uri: "file:///r.md" }), { uri: "file:///r.md", options: { confirm: true } });
  });

  it("capture: the workspace's file URIs, each once", () => {
    const uris = [
      "file:///ws/src/a.rs",
      "untitled:Untitled-1",
      "file:///ws/src/b.rs",
      "file:///ws/src/a.rs",
      "file:///elsewhere/c.rs",
      "file:///ws2/d.rs",
      "git:/ws/src/a.rs",
    ];
    assert.deepEqual(captureArgs(uris, "file:///ws"), { uris: ["file:///ws/src/a.rs", "file:///ws/src/b.rs"] });
    assert.deepEqual(captureArgs(uris, "file:///ws/"), { uris: ["file:///ws/src/a.rs", "file:///ws/src/b.rs"] });
    assert.deepEqual(captureArgs([], "file:///ws"), { uris: [] });
  });

  it("isUnder needs a folder boundary", () => {
    assert.equal(isUnder("file:///ws/a", "file:///ws"), true);
    assert.equal(isUnder("file:///ws2/a", "file:///ws"), false);
    assert.equal(isUnder("file:///ws", "file:///ws"), false);
  });

  it("server settings: the five keys the server reads, unset ones left out", () => {
    const values: Record<string, unknown> = {
      serverPath: "/x",
      matchMode: "exact",
      fuzzyThreshold: null,
      partial: true,
      onConflict: "refuse",
    };
    assert.deepEqual(serverSettings((k) => values[k]), {
      llmEdit: { matchMode: "exact", fuzzyThreshold: null, partial: true, onConflict: "refuse" },
    });
  });
});

describe("reports", () => {
  it("describes an apply with its files and errors", () => {
    const text = describeApply({
      applied: false,
      failureReason: "2 of 3 edits failed",
      files: [
        { path: "src/a.rs", status: "M" },
        { path: "src/new.rs", status: "A" },
        { path: "src/b.rs", status: "M", from: "src/old.rs" },
      ],
      errors: [
        { kind: "not_found", message: "edit 2: the search text was not found", edit: 2, path: "src/a.rs", lines: [12] },
        { kind: "parse", message: "unterminated block", edit: null, path: null, lines: [] },
      ],
      warnings: [{ path: "src/a.rs", line: 3, edits: [1] }],
    });
    assert.equal(
      text,
      [
        "apply: not applied",
        "  2 of 3 edits failed",
        "  M src/a.rs",
        "  A src/new.rs",
        "  M src/old.rs -> src/b.rs",
        "  [not_found] (edit 2, src/a.rs:12) edit 2: the search text was not found",
        "  [parse] unterminated block",
        "  [syntax] src/a.rs:3 would no longer parse (edits 1)",
      ].join("\n"),
    );
  });

  it("describes a preview", () => {
    assert.equal(describePreview({ edit: null, files: [], errors: [] }), "preview: 0 file(s), 0 error(s), nothing to apply");
    assert.equal(describePreview({ edit: {}, files: [{ path: "a", status: "M" }], errors: [] }), "preview: 1 file(s), 0 error(s)\n  M a");
  });

  it("summarizes errors in one line", () => {
    assert.equal(errorSummary([]), "");
    assert.equal(errorSummary([{ kind: "not_found", message: "m1" }]), "1 edit error: m1");
    assert.equal(
      errorSummary([
        { kind: "not_found", message: "m1" },
        { kind: "ambiguous", message: "m2" },
        { kind: "overlap", message: "m3" },
      ]),
      "3 edit errors: m1 (and 2 more)",
    );
  });
});

describe("pending statuses", () => {
  it("marks the payload's files after a failed apply only", () => {
    assert.deepEqual(pendingStatusArgs(false, "p"), { payload: "p" });
    assert.equal(pendingStatusArgs(true, "p"), undefined);
    assert.equal(pendingStatusArgs(false, undefined), undefined);
    assert.equal(pendingStatusArgs(false, "  "), undefined);
  });
});
