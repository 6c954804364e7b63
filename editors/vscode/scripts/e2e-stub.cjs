// Runs the bundled extension (dist/extension.js) against the real server
// binary, with a stubbed `vscode` module that records what the user would
// see: capture a context, apply a payload from the clipboard, a failing
// payload (notification, retry prompt, M status, badge and quick pick), a
// preview, a server crash, a ~M conflict, release the context, restart. Usage: node scripts/e2e-stub.cjs SERVER
// (ci.sh runs it when a server binary is at hand).
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const Module = require("node:module");

const server = process.argv[2];
if (!server || !fs.existsSync(server)) {
  console.error("usage: node scripts/e2e-stub.cjs PATH-TO-llm-edit-lsp");
  process.exit(2);
}

// A workspace with one file.
const ws = fs.mkdtempSync(path.join(os.tmpdir(), "llm-edit-vscode-"));
fs.mkdirSync(path.join(ws, "src"));
const appFile = path.join(ws, "src", "app.py");
fs.writeFileSync(appFile, "def a():\n    return 1\n\n\ndef b():\n    return 2\n");

// ---- a small vscode: the parts the extension and the client use, real
// enough to convert and record edits; anything else is a no-op.
function universal() {
  const fn = function () {};
  return new Proxy(fn, {
    get: (t, k) => {
      if (k === "then") return undefined;
      if (k === Symbol.iterator) return function* () {};
      if (k === Symbol.toPrimitive) return () => "";
      if (k === "dispose") return () => {};
      return universal();
    },
    apply: () => universal(),
    construct: () => universal(),
  });
}

class Uri {
  constructor(scheme, authority, p) {
    this.scheme = scheme;
    this.authority = authority;
    this.path = p;
    this.query = "";
    this.fragment = "";
  }
  static parse(s) {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/]*))?(.*)$/i.exec(s);
    return new Uri(m[1], m[2] ?? "", decodeURIComponent(m[3]));
  }
  static file(p) {
    return new Uri("file", "", p);
  }
  static joinPath(base, ...parts) {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...parts));
  }
  get fsPath() {
    return this.path;
  }
  with() {
    return this;
  }
  toString() {
    return this.scheme === "file" ? `file://${this.path.split("/").map(encodeURIComponent).join("/")}` : `${this.scheme}:${this.path}`;
  }
  toJSON() {
    return this.toString();
  }
}
class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    [this.start, this.end] = typeof a === "number" ? [new Position(a, b), new Position(c, d)] : [a, b];
  }
}
class TextEdit {
  constructor(range, newText) {
    this.range = range;
    this.newText = newText;
  }
}
class WorkspaceEdit {
  constructor() {
    this.entries = [];
  }
  replace(uri, range, newText, metadata) {
    this.entries.push({ uri: uri.toString(), range, newText, metadata });
  }
  insert(uri, position, newText, metadata) {
    this.replace(uri, new Range(position, position), newText, metadata);
  }
  delete(uri, range, metadata) {
    this.replace(uri, range, "", metadata);
  }
  set(uri, edits) {
    for (const e of edits) {
      const [edit, metadata] = Array.isArray(e) ? e : [e, undefined];
      this.replace(uri, edit.range, edit.newText, metadata);
    }
  }
  createFile(uri) {
    this.entries.push({ create: uri.toString() });
  }
  renameFile(from, to) {
    this.entries.push({ rename: [from.toString(), to.toString()] });
  }
  deleteFile(uri) {
    this.entries.push({ delete: uri.toString() });
  }
  get size() {
    return this.entries.length;
  }
}
class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (l) => {
      this.listeners.push(l);
      return { dispose() {} };
    };
  }
  fire(e) {
    for (const l of this.listeners) l(e);
  }
  dispose() {}
}
class Disposable {
  constructor(f) {
    this.dispose = f ?? (() => {});
  }
  static from(...d) {
    return new Disposable(() => d.forEach((x) => x?.dispose?.()));
  }
}
class CancellationTokenSource {
  constructor() {
    this.token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
  }
  cancel() {
    this.token.isCancellationRequested = true;
  }
  dispose() {}
}
class TabInputText {
  constructor(uri) {
    this.uri = uri;
  }
}

const seen = { statusHistory: [], output: [], info: [], warning: [], error: [], applied: [], clipboard: "", statusText: "", decorations: undefined, commands: new Map() };
const disposable = { dispose() {} };
const settings = { serverPath: server, matchMode: "tolerant", fuzzyThreshold: null, partial: false, onConflict: "merge", confirm: false };
let answer; // the button the next warning "clicks"

const stub = {
  version: "1.82.0",
  Uri,
  Position,
  Range,
  TextEdit,
  WorkspaceEdit,
  EventEmitter,
  Disposable,
  CancellationTokenSource,
  CancellationError: class extends Error {},
  TabInputText,
  TabInputTextDiff: class {},
  TabInputCustom: class {},
  ThemeColor: class {
    constructor(id) {
      this.id = id;
    }
  },
  FileDecoration: class {
    constructor(badge, tooltip, color) {
      Object.assign(this, { badge, tooltip, color });
    }
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ProgressLocation: { Window: 10 },
  window: {
    createOutputChannel: () => ({ appendLine: (l) => seen.output.push(l), append() {}, show() {}, clear() {}, dispose() {} }),
    createStatusBarItem: () =>
      new Proxy(
        { show() {}, hide() {}, dispose() {} },
        {
          set: (t, k, v) => {
            if (k === "text") {
              seen.statusText = v;
              seen.statusHistory.push(v);
            }
            t[k] = v;
            return true;
          },
        },
      ),
    registerFileDecorationProvider: (p) => {
      seen.decorations = p;
      return disposable;
    },
    showInformationMessage: async (m) => (seen.info.push(m), undefined),
    showWarningMessage: async (m) => {
      seen.warning.push(m);
      const a = answer;
      answer = undefined;
      return a;
    },
    showErrorMessage: async (m) => (seen.error.push(m), undefined),
    showQuickPick: async (items) => ((seen.picks = items), undefined),
    tabGroups: { all: [{ tabs: [{ input: new TabInputText(Uri.file(appFile)) }] }] },
    activeTextEditor: undefined,
    visibleTextEditors: [],
    onDidChangeActiveTextEditor: () => disposable,
    withProgress: async (_o, task) => task({ report() {} }, new CancellationTokenSource().token),
  },
  commands: {
    registerCommand: (id, f) => {
      seen.commands.set(id, f);
      return disposable;
    },
    executeCommand: async () => undefined,
  },
  workspace: {
    workspaceFolders: [{ uri: Uri.file(ws), name: "ws", index: 0 }],
    textDocuments: [],
    getConfiguration: () => ({ get: (k, d) => (k in settings ? settings[k] : d) }),
    onDidChangeConfiguration: () => disposable,
    onDidOpenTextDocument: () => disposable,
    onDidCloseTextDocument: () => disposable,
    onDidChangeTextDocument: () => disposable,
    onDidSaveTextDocument: () => disposable,
    onWillSaveTextDocument: () => disposable,
    onDidChangeWorkspaceFolders: () => disposable,
    createFileSystemWatcher: () => universal(),
    applyEdit: async (edit) => {
      seen.applied.push(edit);
      return true;
    },
  },
  languages: {
    match: () => 0,
    createDiagnosticCollection: () => ({ set() {}, delete() {}, clear() {}, dispose() {}, get() {}, forEach() {} }),
  },
  env: {
    appName: "stub",
    language: "en",
    clipboard: { readText: async () => seen.clipboardIn ?? "", writeText: async (t) => void (seen.clipboard = t) },
    openExternal: async () => true,
  },
};
function withFallback(obj) {
  return new Proxy(obj, {
    get: (t, k) => {
      if (k in t) {
        const v = t[k];
        return v && typeof v === "object" && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype ? withFallback(v) : v;
      }
      return k === "then" ? undefined : universal();
    },
  });
}
const vscode = withFallback(stub);
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === "vscode" ? vscode : load.call(this, request, ...rest);
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, test, ms = 5000) {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; status bar: ${seen.statusText}`);
    await sleep(25);
  }
}
/** The server's process id: our child process named like the binary. */
function serverPid() {
  const name = path.basename(server).slice(0, 15);
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat);
      if (Number(rest.split(" ")[1]) === process.pid && comm === name) return Number(entry);
    } catch {
      // The process went away.
    }
  }
  throw new Error("the server process was not found in /proc");
}
const run = (id) => seen.commands.get(id)();
const badge = () => seen.decorations.provideFileDecoration(Uri.file(appFile))?.badge;

const extension = require(path.join(__dirname, "..", "dist", "extension.js"));
(async () => {
  await extension.activate({ subscriptions: [] });
  assert.deepEqual(seen.error, [], "no error at start");
  assert.equal(seen.statusText, "$(edit) LLM: no context");

  await run("llmEdit.captureContext");
  assert.match(seen.info.at(-1), /captured 1 file as the context/);
  await until("the context in the status bar", () => seen.statusText === "$(edit) LLM: 1 in context");

  // A failing payload: a warning with the first error, M on the file.
  const bad = "src/app.py\n```python\n<<<<<<< SEARCH\n    return 99\n=======\n    return 3\n>>>>>>> REPLACE\n```\n";
  seen.clipboardIn = bad;
  answer = "Copy retry prompt";
  await run("llmEdit.applyFromClipboard");
  assert.equal(seen.applied.length, 0, "nothing applied");
  assert.match(seen.warning.at(-1), /^LLM Edit: 1 edit error: edit 1 in src\/app\.py: SEARCH not found; closest is line 2/);
  assert.match(seen.clipboard, /^@retry_context\n/);
  assert.match(seen.info.at(-1), /retry prompt copied/);
  await until("M in the status bar", () => seen.statusText === "$(edit) LLM: M 1");
  assert.equal(badge(), "M");
  await run("llmEdit.showStatus");
  assert.deepEqual(
    seen.picks.map((i) => [i.label, i.description]),
    [["M   src/app.py", "the LLM edits it"]],
  );

  // A good payload: applied through workspace/applyEdit.
  seen.clipboardIn = bad.replace("return 99", "return 2");
  await run("llmEdit.applyFromClipboard");
  assert.equal(seen.applied.length, 1, "one applyEdit");
  const entries = seen.applied[0].entries;
  assert.equal(entries.length, 1);
  assert.equal(entries[0].newText, "    return 3\n");
  assert.equal(entries[0].range.start.line, 5);
  await until("the server's message", () => seen.info.some((m) => /^Applied 1 edit to 1 file/.test(m)));
  // The apply succeeded: the file no longer counts as LLM-edited (the stub
  // does not change the buffer, so it equals the capture again).
  await until("the pending edit cleared", () => seen.statusText === "$(edit) LLM: 1 in context");
  assert.equal(badge(), undefined);

  // Preview: every change needs confirmation (VS Code's Refactor Preview).
  seen.clipboardIn = bad.replace("return 99", "return 1").replace("return 3", "return 10");
  await run("llmEdit.preview");
  assert.equal(seen.applied.length, 2, "the preview goes to applyEdit");
  assert.equal(seen.applied[1].entries[0].metadata?.needsConfirmation, true);
  assert.equal(seen.applied[1].entries[0].metadata?.label, "edit 1: search_replace");

  // The server crashes: the client restarts it, and the status comes back.
  process.kill(serverPid(), "SIGKILL");
  const mark = seen.statusHistory.length;
  await until("the status after a crash", () => seen.statusHistory.slice(mark).includes("$(error) LLM: no server"));
  await until("the status after the restart", () => seen.statusText === "$(edit) LLM: 1 in context", 10000);

  // You change line 6 (on disk: the stub has no buffers), the LLM too: ~M,
  // a conflict, nothing written.
  fs.writeFileSync(appFile, "def a():\n    return 1\n\n\ndef b():\n    return 200\n");
  seen.clipboardIn = bad.replace("return 99", "return 2").replace("return 3", "return 20");
  await run("llmEdit.applyFromClipboard");
  assert.equal(seen.applied.length, 2, "nothing applied");
  assert.match(seen.warning.at(-1), /^LLM Edit: 1 edit error: edit 1 in src\/app\.py: your local changes and the LLM's edit change the same lines \(line 6\)/);
  await until("~M in the status bar", () => seen.statusText === "$(warning) LLM: ~M 1");
  assert.equal(badge(), "~M");

  await run("llmEdit.releaseContext");
  assert.equal(seen.statusText, "$(edit) LLM: no context");
  assert.equal(badge(), undefined);

  await run("llmEdit.restartServer");
  assert.equal(seen.statusText, "$(edit) LLM: no context");
  // The only error messages: the server's own reports of the failing applies.
  assert.equal(seen.error.length, 2, "two error messages");
  assert.match(seen.error[0], /^1 of 1 edit failed: edit 1 in src\/app\.py: SEARCH not found/);
  assert.match(seen.error[1], /^1 of 1 edit failed: edit 1 in src\/app\.py: your local changes/);
  await extension.deactivate();
  fs.rmSync(ws, { recursive: true, force: true });
  console.log("e2e ok: capture, failing apply (warning, retry prompt, M status, badge, quick pick), apply (pending cleared), preview (needsConfirmation), server crash and recovery, ~M conflict (warning, status, badge), release, restart");
  process.exit(0);
})().catch((e) => {
  console.error(e);
  console.error("seen:", { ...seen, commands: [...seen.commands.keys()], decorations: undefined });
  process.exit(1);
});
