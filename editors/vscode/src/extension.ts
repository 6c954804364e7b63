// The LLM Edit extension: starts llm-edit-lsp and wires its
// workspace/executeCommand commands to VS Code commands, a status bar item
// and explorer decorations.
//
// The server does the work: it parses a payload, matches it against the
// open buffers and files, and sends the edit back with workspace/applyEdit
// (which vscode-languageclient applies). Diagnostics of failed edits, the
// code actions and code lenses of LLM-response documents, and the conflict
// actions of `~M` files come from the server too. The logic that needs no
// `vscode` lives in args.ts, status.ts and serverPath.ts (unit-tested).

import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions, State } from "vscode-languageclient/node";
import {
  ApplyResult,
  CaptureResult,
  EditorState,
  PayloadSource,
  PreviewResult,
  RetryPromptResult,
  SERVER_COMMANDS,
  applyArgs,
  captureArgs,
  pendingStatusArgs,
  clipboardSource,
  describeApply,
  describePreview,
  editorSource,
  errorSummary,
  previewArgs,
  previewSource,
  retryPromptArgs,
  selectionSource,
  serverSettings,
} from "./args";
import { findServer } from "./serverPath";
import { FileStatus, StatusStore, decorationFor, isStatusParams, statusBarView, statusPickItems } from "./status";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
const statuses = new StatusStore();
const decorationsChanged = new vscode.EventEmitter<vscode.Uri[]>();
/** Why the server is not running, when it is not. */
let serverProblem: string | undefined;
/** The last payload sent, for "Copy retry prompt". */
let lastSource: PayloadSource | undefined;

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("llmEdit");
}

function settings(): { llmEdit: Record<string, unknown> } {
  const c = config();
  return serverSettings((key) => c.get(key));
}

/** The workspace root the server uses: the first workspace folder. */
function rootUri(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

/** A URI as the language client sends it to the server. */
function protocolUri(uri: vscode.Uri): string {
  return client ? client.code2ProtocolConverter.asUri(uri) : uri.toString();
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function createClient(command: string): LanguageClient {
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"] },
    debug: { command, args: ["lsp", "--log-level", "debug"] },
  };
  const clientOptions: LanguageClientOptions = {
    // Every document: edits target any file, responses are any text.
    documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
    initializationOptions: settings(),
    outputChannel: output,
    middleware: {
      // The "Copy retry prompt" code action runs llm-edit.retryPrompt;
      // put its prompt on the clipboard too.
      executeCommand: async (command, args, next) => {
        const result: unknown = await next(command, args);
        if (command === SERVER_COMMANDS.retryPrompt) {
          await copyPrompt(result as RetryPromptResult | undefined);
        } else if (command === SERVER_COMMANDS.apply) {
          // "Apply all N LLM edits" / "Apply this edit" on a response.
          const applied = (result as ApplyResult | undefined)?.applied ?? false;
          await markPending(applied, documentText((args as { uri?: string }[])[0]?.uri));
        }
        return result;
      },
    },
  };
  const created = new LanguageClient("llmEdit", "LLM Edit", serverOptions, clientOptions);
  created.onNotification("llm-edit/status", (params: unknown) => {
    if (isStatusParams(params)) {
      statusesChanged(statuses.update(params));
    }
  });
  // The client restarts a crashed server a few times, then gives up: say so
  // in the status bar (a stop asked for by stop() is not reported).
  created.onDidChangeState((event) => {
    if (client !== created) {
      return;
    }
    if (event.newState === State.Stopped) {
      serverProblem = "the server stopped (see the LLM Edit output)";
      statusesChanged(statuses.clear());
    } else if (event.newState === State.Running && serverProblem) {
      serverProblem = undefined;
      renderStatus();
      void refreshStatus();
    }
  });
  return created;
}

/** Finds and starts the server; on failure, says why and how to fix it. */
async function start(): Promise<void> {
  const lookup = findServer({
    setting: config().get<string>("serverPath"),
    pathEnv: process.env.PATH,
    pathExt: process.env.PATHEXT,
    platform: process.platform,
    home: os.homedir(),
    isExecutable,
  });
  if (!lookup.found) {
    serverProblem = lookup.message;
    renderStatus();
    void showServerProblem();
    return;
  }
  output.appendLine(`server: ${lookup.path} (from ${lookup.source})`);
  const created = createClient(lookup.path);
  client = created;
  try {
    await created.start();
    serverProblem = undefined;
  } catch (e) {
    client = undefined;
    serverProblem = `cannot start ${lookup.path}: ${e instanceof Error ? e.message : String(e)}`;
    void showServerProblem();
  }
  renderStatus();
  if (client) {
    await refreshStatus();
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  statusesChanged(statuses.clear());
  if (running) {
    await running.stop();
  }
}

async function showServerProblem(): Promise<void> {
  const choice = await vscode.window.showErrorMessage(`LLM Edit: ${serverProblem ?? "the server is not running"}`, "Open Settings", "Retry");
  if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "llmEdit.serverPath");
  } else if (choice === "Retry") {
    await restart();
  }
}

/** Runs a server command; the server must be running. */
async function runServerCommand<T>(command: string, arg: object): Promise<T> {
  if (!client) {
    throw new Error(serverProblem ?? "the llm-edit-lsp server is not running (LLM Edit: Restart server)");
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] }) as Promise<T>;
}

/** The status of the default context, when one was captured (a restarted
 * server finds it again); the notifications keep it up to date. */
async function refreshStatus(): Promise<void> {
  try {
    const result = await runServerCommand<unknown>(SERVER_COMMANDS.status, {});
    if (isStatusParams(result)) {
      statusesChanged(statuses.update(result));
    }
  } catch {
    // No default context: nothing to show.
  }
}

function fileUri(path: string): vscode.Uri | undefined {
  const root = rootUri();
  return root ? vscode.Uri.joinPath(root, ...path.split(/[\\/]/)) : undefined;
}

function statusesChanged(paths: string[]): void {
  renderStatus();
  const uris = paths.map(fileUri).filter((u): u is vscode.Uri => u !== undefined);
  if (uris.length > 0) {
    decorationsChanged.fire(uris);
  }
}

function renderStatus(): void {
  if (serverProblem) {
    statusItem.text = "$(error) LLM: no server";
    statusItem.tooltip = `LLM Edit: ${serverProblem}\nClick to retry.`;
    statusItem.command = "llmEdit.restartServer";
    statusItem.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
  } else {
    const view = statusBarView(statuses);
    statusItem.text = view.text;
    statusItem.tooltip = view.tooltip;
    statusItem.command = "llmEdit.showStatus";
    statusItem.backgroundColor = view.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }
  statusItem.show();
}

/** The explorer badges, from the same statuses as the status bar. */
class StatusDecorations implements vscode.FileDecorationProvider {
  readonly onDidChangeFileDecorations = decorationsChanged.event;

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const root = rootUri();
    if (!root || uri.scheme !== root.scheme || uri.authority !== root.authority) {
      return undefined;
    }
    const base = root.path.endsWith("/") ? root.path : root.path + "/";
    if (!uri.path.startsWith(base)) {
      return undefined;
    }
    const status: FileStatus | undefined = statuses.merged().get(uri.path.slice(base.length));
    const view = decorationFor(status);
    if (!view) {
      return undefined;
    }
    const decoration = new vscode.FileDecoration(view.badge, view.tooltip, new vscode.ThemeColor(view.color));
    decoration.propagate = view.propagate;
    return decoration;
  }
}

async function showStatus(): Promise<void> {
  if (serverProblem) {
    await showServerProblem();
    return;
  }
  const items = statusPickItems(statuses);
  if (items.length === 0) {
    const choice = await vscode.window.showInformationMessage(
      "LLM Edit: no context captured. Capture the open editors before you show them to the LLM.",
      "Capture context",
    );
    if (choice) {
      await captureContext();
    }
    return;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: "LLM Edit: files of the context",
    placeHolder: "~M: you and the LLM both changed it · M: the LLM edits it · A: creates it · ~: you changed it",
    matchOnDescription: true,
  });
  const uri = picked ? fileUri(picked.path) : undefined;
  if (uri) {
    try {
      await vscode.window.showTextDocument(uri);
    } catch {
      void vscode.window.showInformationMessage(`LLM Edit: ${picked?.path} does not exist yet.`);
    }
  }
}

/** The active editor, as args.ts sees it. */
function editorState(): EditorState | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return undefined;
  }
  const document = editor.document;
  return {
    uri: protocolUri(document.uri),
    scheme: document.uri.scheme,
    languageId: document.languageId,
    text: document.getText(),
    selection: editor.selection.isEmpty ? "" : document.getText(editor.selection),
  };
}

/** The text of an open document, by the URI the server knows it by. */
function documentText(uri: string | undefined): string | undefined {
  return uri === undefined
    ? undefined
    : vscode.workspace.textDocuments.find((d) => protocolUri(d.uri) === uri)?.getText();
}

/** After a failed apply while a context is captured: the files the payload
 * edits show as `M` (or `~M`) until an apply succeeds. */
async function markPending(applied: boolean, payloadText: string | undefined): Promise<void> {
  const args = pendingStatusArgs(applied, payloadText);
  if (!args || statuses.ids().length === 0) {
    return;
  }
  try {
    const result = await runServerCommand<unknown>(SERVER_COMMANDS.status, args);
    if (isStatusParams(result)) {
      statusesChanged(statuses.update(result));
    }
  } catch (e) {
    // Not parsable, or the context went: the statuses stay as they are.
    output.appendLine(`status: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function apply(source: PayloadSource | undefined, what: string): Promise<void> {
  if (!source) {
    void vscode.window.showWarningMessage(`LLM Edit: nothing to apply (${what} is empty).`);
    return;
  }
  lastSource = source;
  const result = await runServerCommand<ApplyResult>(SERVER_COMMANDS.apply, applyArgs(source));
  // The server already showed a summary with window/showMessage.
  output.appendLine(describeApply(result));
  await markPending(result.applied, "payload" in source ? source.payload : documentText(source.uri));
  await offerRetry(result.errors ?? []);
}

/** After a failure: copy the retry prompt, or show the details. */
async function offerRetry(errors: ApplyResult["errors"]): Promise<void> {
  if (errors.length === 0) {
    return;
  }
  const choice = await vscode.window.showWarningMessage(`LLM Edit: ${errorSummary(errors)}`, "Copy retry prompt", "Show details");
  if (choice === "Copy retry prompt") {
    await copyRetryPrompt();
  } else if (choice === "Show details") {
    output.show(true);
  }
}

async function preview(): Promise<void> {
  const source = previewSource(editorState(), await vscode.env.clipboard.readText());
  if (!source) {
    void vscode.window.showWarningMessage("LLM Edit: nothing to preview (no selection, no response open, empty clipboard).");
    return;
  }
  lastSource = source;
  // Every change carries a needsConfirmation annotation: VS Code opens the
  // Refactor Preview, where changes can be unchecked, then applied or discarded.
  const result = await runServerCommand<PreviewResult>(SERVER_COMMANDS.preview, previewArgs(source));
  output.appendLine(describePreview(result));
  if (!result.edit || !client) {
    await offerRetry(result.errors ?? []);
    return;
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(
    result.edit as Parameters<typeof client.protocol2CodeConverter.asWorkspaceEdit>[0],
  );
  if (edit) {
    await vscode.workspace.applyEdit(edit);
  }
  await offerRetry(result.errors ?? []);
}

async function copyPrompt(result: RetryPromptResult | undefined): Promise<void> {
  if (!result || !result.prompt) {
    void vscode.window.showInformationMessage("LLM Edit: every edit applies; there is nothing to retry.");
    return;
  }
  await vscode.env.clipboard.writeText(result.prompt);
  void vscode.window.showInformationMessage("LLM Edit: retry prompt copied to the clipboard; paste it to the LLM.");
}

async function copyRetryPrompt(): Promise<void> {
  const source = lastSource ?? previewSource(editorState(), await vscode.env.clipboard.readText());
  if (!source) {
    void vscode.window.showWarningMessage("LLM Edit: no payload to retry (apply or preview one first).");
    return;
  }
  await copyPrompt(await runServerCommand<RetryPromptResult>(SERVER_COMMANDS.retryPrompt, retryPromptArgs(source)));
}

/** The `file:` URIs of the open editors (every tab group). */
function openEditorUris(): string[] {
  const uris: string[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputText) {
        uris.push(protocolUri(tab.input.uri));
      }
    }
  }
  return uris;
}

async function captureContext(): Promise<void> {
  const root = rootUri();
  if (!root) {
    void vscode.window.showWarningMessage("LLM Edit: open a folder first; the context is kept under its .llm-edit folder.");
    return;
  }
  const args = captureArgs(openEditorUris(), protocolUri(root));
  if (args.uris.length === 0) {
    void vscode.window.showWarningMessage("LLM Edit: no open editor shows a file of the workspace; open the files the LLM will see.");
    return;
  }
  const result = await runServerCommand<CaptureResult>(SERVER_COMMANDS.captureContext, args);
  output.appendLine(`capture: context "${result.id}": ${result.files.join(", ")}`);
  void vscode.window.showInformationMessage(
    `LLM Edit: captured ${result.files.length} file${result.files.length === 1 ? "" : "s"} as the context the LLM sees.`,
  );
  await refreshStatus();
}

async function releaseContext(): Promise<void> {
  const result = await runServerCommand<{ id: string }>(SERVER_COMMANDS.releaseContext, {});
  statusesChanged(statuses.release(result.id));
  void vscode.window.showInformationMessage(`LLM Edit: context "${result.id}" released.`);
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/** Wraps a command so that its errors show as messages. */
function guarded(run: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await run();
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      void vscode.window.showErrorMessage(`LLM Edit: ${message}`);
    }
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("LLM Edit");
  statusItem = vscode.window.createStatusBarItem("llmEdit.status", vscode.StatusBarAlignment.Left, 50);
  statusItem.name = "LLM Edit";
  context.subscriptions.push(
    output,
    statusItem,
    decorationsChanged,
    vscode.window.registerFileDecorationProvider(new StatusDecorations()),
    vscode.commands.registerCommand(
      "llmEdit.applyFromClipboard",
      guarded(async () => apply(clipboardSource(await vscode.env.clipboard.readText()), "the clipboard")),
    ),
    vscode.commands.registerCommand(
      "llmEdit.applyFromSelection",
      guarded(async () => apply(selectionSource(editorState()), "the selection")),
    ),
    vscode.commands.registerCommand(
      "llmEdit.applyFromEditor",
      guarded(async () => apply(editorSource(editorState()), "the active editor")),
    ),
    vscode.commands.registerCommand("llmEdit.preview", guarded(preview)),
    vscode.commands.registerCommand("llmEdit.captureContext", guarded(captureContext)),
    vscode.commands.registerCommand("llmEdit.releaseContext", guarded(releaseContext)),
    vscode.commands.registerCommand("llmEdit.copyRetryPrompt", guarded(copyRetryPrompt)),
    vscode.commands.registerCommand("llmEdit.restartServer", guarded(restart)),
    vscode.commands.registerCommand("llmEdit.showStatus", guarded(showStatus)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("llmEdit")) {
        return;
      }
      if (event.affectsConfiguration("llmEdit.serverPath")) {
        await guarded(restart)();
      } else if (client) {
        await client.sendNotification("workspace/didChangeConfiguration", { settings: settings() });
      }
    }),
  );
  renderStatus();
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
