// The LLM Edit extension: starts llm-edit-lsp and wires its
// workspace/executeCommand commands to VS Code commands.
//
// The server does the work: it parses a payload, matches it against the
// open buffers and files, and sends the edit back with workspace/applyEdit
// (which vscode-languageclient applies). Diagnostics of failed edits and
// the code actions of LLM-response documents come from the server too.

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

/** The server's commands (see docs/lsp.md). */
const SERVER = {
  preview: "llm-edit.preview",
  apply: "llm-edit.apply",
  retryPrompt: "llm-edit.retryPrompt",
} as const;

/** The settings the server reads, under `llmEdit`. */
const SERVER_SETTINGS = [
  "matchMode",
  "fuzzyThreshold",
  "partial",
  "onConflict",
  "confirm",
] as const;

/** One failure, as the server serializes it. */
interface EditError {
  kind: string;
  message: string;
  edit?: number | null;
  path?: string | null;
}

/** A file of a result. */
interface FileEntry {
  path: string;
  status: string;
  from?: string;
}

/** The result of `llm-edit.apply`. */
interface ApplyResult {
  applied: boolean;
  failureReason?: string;
  files: FileEntry[];
  errors: EditError[];
}

/** The result of `llm-edit.preview`. */
interface PreviewResult {
  edit: unknown;
  files: FileEntry[];
  errors: EditError[];
}

/** The result of `llm-edit.retryPrompt`. */
interface RetryPromptResult {
  prompt: string | null;
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
/** The last payload sent, for "Copy retry prompt". */
let lastPayload: string | undefined;

/** The server-side settings, as `initializationOptions` and
 * `workspace/didChangeConfiguration` carry them. */
function serverSettings(): { llmEdit: Record<string, unknown> } {
  const config = vscode.workspace.getConfiguration("llmEdit");
  const llmEdit: Record<string, unknown> = {};
  for (const key of SERVER_SETTINGS) {
    llmEdit[key] = config.get(key);
  }
  return { llmEdit };
}

function createClient(): LanguageClient {
  const command = vscode.workspace
    .getConfiguration("llmEdit")
    .get<string>("serverPath", "llm-edit-lsp");
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"] },
    debug: { command, args: ["lsp", "--log-level", "debug"] },
  };
  const clientOptions: LanguageClientOptions = {
    // Every document: edits target any file, responses are any text.
    documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
    initializationOptions: serverSettings(),
    outputChannel: output,
    middleware: {
      // The "Copy retry prompt" code action runs llm-edit.retryPrompt;
      // put its prompt on the clipboard too.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        if (command === SERVER.retryPrompt) {
          await copyPrompt(result as RetryPromptResult | undefined);
        }
        return result;
      },
    },
  };
  return new LanguageClient(
    "llmEdit",
    "LLM Edit",
    serverOptions,
    clientOptions
  );
}

/** Runs a server command; the server must be running. */
async function runServerCommand<T>(command: string, arg: object): Promise<T> {
  if (!client) {
    throw new Error("the llm-edit-lsp server is not running");
  }
  return client.sendRequest(ExecuteCommandRequest.type, {
    command,
    arguments: [arg],
  }) as Promise<T>;
}

/** The payload under the cursor: the selection, else the whole document. */
function editorPayload(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return undefined;
  }
  const selection = editor.selection;
  return selection.isEmpty
    ? editor.document.getText()
    : editor.document.getText(selection);
}

/** The payload of the selection/file, else of the clipboard. */
async function anyPayload(): Promise<string | undefined> {
  const fromEditor = editorPayload();
  if (fromEditor && fromEditor.trim()) {
    return fromEditor;
  }
  const fromClipboard = await vscode.env.clipboard.readText();
  return fromClipboard.trim() ? fromClipboard : undefined;
}

function describeErrors(errors: EditError[]): string[] {
  return errors.map((e) => {
    const where = [e.edit ? `edit ${e.edit}` : "", e.path ?? ""]
      .filter(Boolean)
      .join(", ");
    return `  [${e.kind}]${where ? ` (${where})` : ""} ${e.message}`;
  });
}

function describeFiles(files: FileEntry[]): string[] {
  return files.map(
    (f) => `  ${f.status} ${f.from ? `${f.from} -> ` : ""}${f.path}`
  );
}

async function apply(payload: string | undefined): Promise<void> {
  if (!payload) {
    void vscode.window.showWarningMessage(
      "LLM Edit: no payload (the selection, document and clipboard are empty)."
    );
    return;
  }
  lastPayload = payload;
  const result = await runServerCommand<ApplyResult>(SERVER.apply, {
    payload,
  });
  // The server already showed a summary with window/showMessage.
  output.appendLine(
    [
      `apply: ${result.applied ? "applied" : "not applied"}`,
      ...(result.failureReason ? [`  ${result.failureReason}`] : []),
      ...describeFiles(result.files),
      ...describeErrors(result.errors),
    ].join("\n")
  );
  if (result.errors.length > 0) {
    const choice = await vscode.window.showWarningMessage(
      `LLM Edit: ${result.errors.length} edit error(s).`,
      "Copy retry prompt",
      "Show details"
    );
    if (choice === "Copy retry prompt") {
      await copyRetryPrompt();
    } else if (choice === "Show details") {
      output.show(true);
    }
  }
}

async function preview(): Promise<void> {
  const payload = await anyPayload();
  if (!payload || !client) {
    void vscode.window.showWarningMessage("LLM Edit: no payload to preview.");
    return;
  }
  lastPayload = payload;
  // With confirm on, every change carries a needsConfirmation annotation:
  // VS Code opens the Refactor Preview, where changes can be unchecked.
  const result = await runServerCommand<PreviewResult>(SERVER.preview, {
    payload,
    options: { confirm: true },
  });
  output.appendLine(
    [
      `preview: ${result.files.length} file(s), ${result.errors.length} error(s)`,
      ...describeFiles(result.files),
      ...describeErrors(result.errors),
    ].join("\n")
  );
  if (!result.edit) {
    output.show(true);
    void vscode.window.showWarningMessage(
      "LLM Edit: nothing can be applied; see the LLM Edit output."
    );
    return;
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(
    result.edit as Parameters<
      typeof client.protocol2CodeConverter.asWorkspaceEdit
    >[0]
  );
  if (edit) {
    await vscode.workspace.applyEdit(edit);
  }
}

async function copyPrompt(result: RetryPromptResult | undefined): Promise<void> {
  if (!result || !result.prompt) {
    void vscode.window.showInformationMessage(
      "LLM Edit: every edit applies; there is nothing to retry."
    );
    return;
  }
  await vscode.env.clipboard.writeText(result.prompt);
  void vscode.window.showInformationMessage(
    "LLM Edit: retry prompt copied to the clipboard."
  );
}

async function copyRetryPrompt(): Promise<void> {
  const payload = lastPayload ?? (await anyPayload());
  if (!payload) {
    void vscode.window.showWarningMessage("LLM Edit: no payload to retry.");
    return;
  }
  await copyPrompt(
    await runServerCommand<RetryPromptResult>(SERVER.retryPrompt, { payload })
  );
}

async function restart(): Promise<void> {
  if (client) {
    await client.stop();
  }
  client = createClient();
  await client.start();
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
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand(
      "llmEdit.applyFromClipboard",
      guarded(async () => apply(await vscode.env.clipboard.readText()))
    ),
    vscode.commands.registerCommand(
      "llmEdit.applyFromEditor",
      guarded(async () => apply(editorPayload()))
    ),
    vscode.commands.registerCommand("llmEdit.preview", guarded(preview)),
    vscode.commands.registerCommand(
      "llmEdit.copyRetryPrompt",
      guarded(copyRetryPrompt)
    ),
    vscode.commands.registerCommand("llmEdit.restartServer", guarded(restart)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("llmEdit")) {
        return;
      }
      if (event.affectsConfiguration("llmEdit.serverPath")) {
        await guarded(restart)();
      } else if (client) {
        await client.sendNotification("workspace/didChangeConfiguration", {
          settings: serverSettings(),
        });
      }
    })
  );
  client = createClient();
  try {
    await client.start();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(
      `LLM Edit: cannot start the server (llmEdit.serverPath): ${message}`
    );
  }
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}
