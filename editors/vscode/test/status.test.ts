import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  countStatuses,
  decorationFor,
  isStatusParams,
  StatusStore,
  statusBarView,
  statusPickItems,
  statusRank,
} from "../src/status";

const sample = {
  id: "default",
  files: [
    { path: "README.md", status: "" as const },
    { path: "src/a.rs", status: "~M" as const },
    { path: "src/b.rs", status: "M" as const },
    { path: "src/c.rs", status: "~" as const },
    { path: "src/new.rs", status: "A" as const },
    { path: "src/z.rs", status: "~M" as const },
  ],
};

describe("StatusStore", () => {
  it("reports the paths whose status changed", () => {
    const store = new StatusStore();
    assert.deepEqual(store.update(sample), ["README.md", "src/a.rs", "src/b.rs", "src/c.rs", "src/new.rs", "src/z.rs"]);
    assert.deepEqual(
      store.update({
        id: "default",
        files: [
          { path: "README.md", status: "" },
          { path: "src/a.rs", status: "M" },
          { path: "src/b.rs", status: "M" },
          { path: "src/c.rs", status: "~" },
          { path: "src/new.rs", status: "A" },
        ],
      }),
      ["src/a.rs", "src/z.rs"],
    );
    assert.deepEqual(store.release("default"), ["README.md", "src/a.rs", "src/b.rs", "src/c.rs", "src/new.rs"]);
    assert.deepEqual(store.ids(), []);
    assert.equal(store.merged().size, 0);
  });

  it("merges contexts, keeping the status that asks for the most attention", () => {
    const store = new StatusStore();
    store.update({ id: "b", files: [{ path: "x", status: "~M" }, { path: "y", status: "" }] });
    store.update({ id: "a", files: [{ path: "x", status: "M" }, { path: "y", status: "~" }] });
    assert.deepEqual([...store.merged()].sort(), [
      ["x", "~M"],
      ["y", "~"],
    ]);
    assert.deepEqual(store.ids(), ["a", "b"]);
    assert.deepEqual(store.clear(), ["x", "y"]);
  });

  it("drops files with an unknown status", () => {
    const store = new StatusStore();
    store.update({ id: "default", files: [{ path: "a", status: "Q" as never }, { path: "b", status: "M" }] });
    assert.deepEqual([...store.merged()], [["b", "M"]]);
  });
});

describe("isStatusParams", () => {
  it("accepts the notification's shape only", () => {
    assert.equal(isStatusParams(sample), true);
    assert.equal(isStatusParams({ id: "x", files: [] }), true);
    assert.equal(isStatusParams(null), false);
    assert.equal(isStatusParams({ id: 1, files: [] }), false);
    assert.equal(isStatusParams({ id: "x" }), false);
    assert.equal(isStatusParams({ id: "x", files: [{ path: "a" }] }), false);
    assert.equal(isStatusParams({ id: "x", files: [null] }), false);
  });
});

describe("status bar", () => {
  it("says when no context was captured", () => {
    const view = statusBarView(new StatusStore());
    assert.equal(view.text, "$(edit) LLM: no context");
    assert.match(view.tooltip, /Capture context \(open editors\)/);
    assert.equal(view.warning, false);
  });

  it("shows the ~M count first, with a warning", () => {
    const store = new StatusStore();
    store.update(sample);
    const view = statusBarView(store);
    assert.equal(view.text, "$(warning) LLM: ~M 2 M 1 A 1 ~ 1");
    assert.equal(view.warning, true);
    assert.equal(
      view.tooltip,
      [
        'LLM Edit — context "default": 6 files',
        "~M: 2 (you and the LLM both changed it)",
        "M: 1 (the LLM edits it)",
        "A: 1 (the LLM creates it)",
        "~: 1 (you changed it since the LLM saw it)",
        "unchanged: 1 (in context, unchanged)",
        "Click to list the files.",
      ].join("\n"),
    );
  });

  it("shows the size of an untouched context", () => {
    const store = new StatusStore();
    store.update({ id: "default", files: [{ path: "a", status: "" }, { path: "b", status: "" }] });
    assert.deepEqual(statusBarView(store), {
      text: "$(edit) LLM: 2 in context",
      tooltip: 'LLM Edit — context "default": 2 files\nunchanged: 2 (in context, unchanged)\nClick to list the files.',
      warning: false,
    });
  });

  it("counts statuses", () => {
    assert.deepEqual(countStatuses(["M", "M", "~M", ""]), { "": 1, M: 2, A: 0, "~": 0, "~M": 1 });
  });
});

describe("quick pick", () => {
  it("lists ~M first, then M/A, ~, unchanged, by path", () => {
    const store = new StatusStore();
    store.update(sample);
    assert.deepEqual(
      statusPickItems(store).map((i) => [i.label, i.description, i.path]),
      [
        ["~M  src/a.rs", "you and the LLM both changed it", "src/a.rs"],
        ["~M  src/z.rs", "you and the LLM both changed it", "src/z.rs"],
        ["M   src/b.rs", "the LLM edits it", "src/b.rs"],
        ["A   src/new.rs", "the LLM creates it", "src/new.rs"],
        ["~   src/c.rs", "you changed it since the LLM saw it", "src/c.rs"],
        ["·   README.md", "in context, unchanged", "README.md"],
      ],
    );
  });

  it("names the context when there are several", () => {
    const store = new StatusStore();
    store.update({ id: "chat-1", files: [{ path: "a", status: "M" }] });
    store.update({ id: "chat-2", files: [{ path: "a", status: "~" }] });
    assert.deepEqual(
      statusPickItems(store).map((i) => i.description),
      ['the LLM edits it — context "chat-1"', 'you changed it since the LLM saw it — context "chat-2"'],
    );
  });
});

describe("decorations", () => {
  it("badges M, A, ~ and ~M; nothing for unchanged files", () => {
    assert.equal(decorationFor(undefined), undefined);
    assert.equal(decorationFor(""), undefined);
    assert.deepEqual(
      (["M", "A", "~", "~M"] as const).map((s) => {
        const d = decorationFor(s);
        return [d?.badge, d?.color, d?.propagate];
      }),
      [
        ["M", "gitDecoration.modifiedResourceForeground", false],
        ["A", "gitDecoration.addedResourceForeground", false],
        ["~", "gitDecoration.untrackedResourceForeground", false],
        ["~M", "gitDecoration.conflictingResourceForeground", true],
      ],
    );
    for (const s of ["M", "A", "~", "~M"] as const) {
      assert.ok((decorationFor(s)?.badge.length ?? 0) <= 2, "a badge has at most 2 characters");
    }
  });

  it("ranks ~M above M/A above ~ above unchanged", () => {
    assert.ok(statusRank("~M") > statusRank("M"));
    assert.equal(statusRank("M"), statusRank("A"));
    assert.ok(statusRank("A") > statusRank("~"));
    assert.ok(statusRank("~") > statusRank(""));
  });
});
