// Loads dist/extension.js with a stubbed `vscode` module and activates it
// with a server path that does not exist: the bundle must load (every
// dependency is inside it), register its commands, and say how to install
// the server. Run by ci.sh after the bundle step.
"use strict";
const assert = require("node:assert/strict");
const Module = require("node:module");
const path = require("node:path");

const calls = { commands: [], errors: [], statusText: [] };

/** Any name not stubbed below: a class that accepts anything. */
function anything(name) {
  const fn = function () {};
  return new Proxy(fn, {
    get: (target, key) => (key in target ? target[key] : key === "prototype" ? {} : anything(`${name}.${String(key)}`)),
    construct: () => ({}),
    apply: () => undefined,
  });
}

class EventEmitter {
  constructor() {
    this.event = () => ({ dispose() {} });
  }
  fire() {}
  dispose() {}
}

const disposable = { dispose() {} };
const settings = { serverPath: "/nonexistent/llm-edit-lsp" };
const stub = {
  EventEmitter,
  ThemeColor: class {
    constructor(id) {
      this.id = id;
    }
  },
  FileDecoration: class {},
  TabInputText: class {},
  StatusBarAlignment: { Left: 1, Right: 2 },
  Uri: { joinPath: () => ({}) },
  window: {
    createOutputChannel: () => ({ appendLine() {}, show() {}, dispose() {} }),
    createStatusBarItem: () => {
      const item = { show() {}, dispose() {} };
      return new Proxy(item, {
        set: (t, k, v) => {
          if (k === "text") calls.statusText.push(v);
          t[k] = v;
          return true;
        },
      });
    },
    registerFileDecorationProvider: () => disposable,
    showErrorMessage: async (message) => {
      calls.errors.push(message);
      return undefined;
    },
    showWarningMessage: async () => undefined,
    showInformationMessage: async () => undefined,
    tabGroups: { all: [] },
  },
  commands: {
    registerCommand: (id) => {
      calls.commands.push(id);
      return disposable;
    },
    executeCommand: async () => undefined,
  },
  workspace: {
    getConfiguration: () => ({ get: (key) => settings[key] }),
    onDidChangeConfiguration: () => disposable,
    workspaceFolders: undefined,
  },
  env: { clipboard: { readText: async () => "", writeText: async () => undefined } },
};
const vscode = new Proxy(stub, { get: (t, k) => (k in t ? t[k] : anything(String(k))) });

const load = Module._load;
Module._load = function (request, ...rest) {
  return request === "vscode" ? vscode : load.call(this, request, ...rest);
};

const bundle = path.join(__dirname, "..", "dist", "extension.js");
const extension = require(bundle);
assert.equal(typeof extension.activate, "function", "activate is exported");
assert.equal(typeof extension.deactivate, "function", "deactivate is exported");

const manifest = require("../package.json");
(async () => {
  await extension.activate({ subscriptions: [] });
  assert.deepEqual(calls.commands.sort(), manifest.contributes.commands.map((c) => c.command).sort());
  assert.equal(calls.errors.length, 1, "one error message");
  assert.match(calls.errors[0], /llmEdit\.serverPath is "\/nonexistent\/llm-edit-lsp", which is not an executable file/);
  assert.match(calls.errors[0], /cargo install --path \./);
  assert.equal(calls.statusText.at(-1), "$(error) LLM: no server");
  await extension.deactivate();
  console.log(`bundle ok: ${path.relative(process.cwd(), bundle)} loads; ${calls.commands.length} commands registered; missing server reported`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
