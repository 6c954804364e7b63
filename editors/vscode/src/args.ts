// The arguments of the server's commands (docs/lsp.md) and the text shown
// for their results. No `vscode` import: unit-tested with node.

/** The server's `workspace/executeCommand` commands. */
export const SERVER_COMMANDS = {
  preview: "llm-edit.preview",
  apply: "llm-edit.apply",
  retryPrompt: "llm-edit.retryPrompt",
  captureContext: "llm-edit.captureContext",
  releaseContext: "llm-edit.releaseContext",
  status: "llm-edit.status",
} as const;

/** The settings the server reads, under `llmEdit`. */
export const SERVER_SETTINGS = ["matchMode", "fuzzyThreshold", "partial", "onConflict", "confirm"] as const;

/** Where an LLM's text comes from: the text itself, or an open document. */
export type PayloadSource = { payload: string } | { uri: string };

/** One failure, as the server serializes it. */
export interface EditError {
  kind: string;
  message: string;
  edit?: number | null;
  path?: string | null;
  /** The 1-based file lines involved (the first is where to look). */
  lines?: number[];
}

/** A file of a result. */
export interface FileEntry {
  path: string;
  status: string;
  from?: string;
}

/** A changed file that parsed before and would not after. */
export interface SyntaxWarning {
  path: string;
  line: number;
  edits?: number[];
}

/** The result of `llm-edit.apply`. */
export interface ApplyResult {
  applied: boolean;
  failureReason?: string;
  files: FileEntry[];
  errors: EditError[];
  warnings?: SyntaxWarning[];
}

/** The result of `llm-edit.preview`. */
export interface PreviewResult {
  edit: unknown;
  files: FileEntry[];
  errors: EditError[];
  warnings?: SyntaxWarning[];
}

/** The result of `llm-edit.retryPrompt`. */
export interface RetryPromptResult {
  prompt: string | null;
}

/** The result of `llm-edit.captureContext`. */
export interface CaptureResult {
  id: string;
  files: string[];
}

/** What the extension knows of the active editor. */
export interface EditorState {
  /** The document's URI, as the language client sent it to the server. */
  uri: string;
  scheme: string;
  languageId: string;
  /** The whole text. */
  text: string;
  /** The selected text ("" when the selection is empty). */
  selection: string;
}

const blank = (text: string | undefined): boolean => !text || text.trim() === "";

/** "Apply from this editor": the whole document, by URI (the server reads
 * the open buffer, unsaved text included, and its diagnostics land on the
 * failing blocks of that document). */
export function editorSource(editor: EditorState | undefined): PayloadSource | undefined {
  if (!editor || blank(editor.text)) {
    return undefined;
  }
  return { uri: editor.uri };
}

/** "Apply from selection": the selected text. */
export function selectionSource(editor: EditorState | undefined): PayloadSource | undefined {
  if (!editor || blank(editor.selection)) {
    return undefined;
  }
  return { payload: editor.selection };
}

/** "Apply from clipboard": the clipboard's text. */
export function clipboardSource(clipboard: string | undefined): PayloadSource | undefined {
  return blank(clipboard) ? undefined : { payload: clipboard as string };
}

/** Whether a document is likely an LLM response rather than a file the LLM
 * edits: an untitled buffer, markdown or plain text. */
export function looksLikeResponse(editor: EditorState): boolean {
  return editor.scheme === "untitled" || editor.languageId === "markdown" || editor.languageId === "plaintext";
}

/** "Preview": the selection; else the active document when it looks like a
 * response; else the clipboard. */
export function previewSource(editor: EditorState | undefined, clipboard: string | undefined): PayloadSource | undefined {
  const selected = selectionSource(editor);
  if (selected) {
    return selected;
  }
  if (editor && looksLikeResponse(editor)) {
    const whole = editorSource(editor);
    if (whole) {
      return whole;
    }
  }
  return clipboardSource(clipboard);
}

/** The argument of `llm-edit.apply`. */
export function applyArgs(source: PayloadSource): Record<string, unknown> {
  return { ...source };
}

/** The argument of `llm-edit.preview` for the Refactor Preview: every
 * change is marked `needsConfirmation`, so VS Code lists them all. */
export function previewArgs(source: PayloadSource): Record<string, unknown> {
  return { ...source, options: { confirm: true } };
}

/** The argument of `llm-edit.retryPrompt`. */
export function retryPromptArgs(source: PayloadSource): Record<string, unknown> {
  return { ...source };
}

/** The argument of `llm-edit.status` after an apply that failed while a
 * context is captured: the files the payload edits then count as LLM-edited
 * (`M`, or `~M` when you changed them too) until an apply succeeds. None
 * when the apply succeeded (the server cleared them) or there is no text. */
export function pendingStatusArgs(applied: boolean, payloadText: string | undefined): { payload: string } | undefined {
  return applied || blank(payloadText) ? undefined : { payload: payloadText as string };
}

/** Whether a `file:` URI lies inside the root folder's URI. */
export function isUnder(uri: string, root: string): boolean {
  const base = root.endsWith("/") ? root : root + "/";
  return uri.startsWith(base);
}

/** The argument of `llm-edit.captureContext` for these open editors: the
 * `file:` URIs inside the workspace root, each once, in order. */
export function captureArgs(uris: readonly string[], root: string | undefined): { uris: string[] } {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const uri of uris) {
    if (!uri.startsWith("file:") || (root !== undefined && !isUnder(uri, root)) || seen.has(uri)) {
      continue;
    }
    seen.add(uri);
    kept.push(uri);
  }
  return { uris: kept };
}

/** The server-side settings, as `initializationOptions` and
 * `workspace/didChangeConfiguration` carry them. */
export function serverSettings(get: (key: string) => unknown): { llmEdit: Record<string, unknown> } {
  const llmEdit: Record<string, unknown> = {};
  for (const key of SERVER_SETTINGS) {
    const value = get(key);
    if (value !== undefined) {
      llmEdit[key] = value;
    }
  }
  return { llmEdit };
}

/** One line per error: `[kind] (edit 2, src/a.rs:12) message`. */
export function describeErrors(errors: readonly EditError[]): string[] {
  return errors.map((e) => {
    const line = e.lines && e.lines.length > 0 ? e.lines[0] : undefined;
    const place = e.path ? (line ? `${e.path}:${line}` : e.path) : "";
    const where = [e.edit ? `edit ${e.edit}` : "", place].filter(Boolean).join(", ");
    return `  [${e.kind}]${where ? ` (${where})` : ""} ${e.message}`;
  });
}

/** One line per file: `  M src/a.rs`, `  A old -> new`. */
export function describeFiles(files: readonly FileEntry[]): string[] {
  return files.map((f) => `  ${f.status || " "} ${f.from ? `${f.from} -> ` : ""}${f.path}`);
}

/** One line per syntax warning. */
export function describeWarnings(warnings: readonly SyntaxWarning[] | undefined): string[] {
  return (warnings ?? []).map(
    (w) => `  [syntax] ${w.path}:${w.line} would no longer parse${w.edits?.length ? ` (edits ${w.edits.join(", ")})` : ""}`,
  );
}

/** The output channel's report of an apply. */
export function describeApply(result: ApplyResult): string {
  return [
    `apply: ${result.applied ? "applied" : "not applied"}`,
    ...(result.failureReason ? [`  ${result.failureReason}`] : []),
    ...describeFiles(result.files ?? []),
    ...describeErrors(result.errors ?? []),
    ...describeWarnings(result.warnings),
  ].join("\n");
}

/** The output channel's report of a preview. */
export function describePreview(result: PreviewResult): string {
  const files = result.files ?? [];
  const errors = result.errors ?? [];
  return [
    `preview: ${files.length} file(s), ${errors.length} error(s)${result.edit ? "" : ", nothing to apply"}`,
    ...describeFiles(files),
    ...describeErrors(errors),
    ...describeWarnings(result.warnings),
  ].join("\n");
}

/** The notification after a failed apply or preview. */
export function errorSummary(errors: readonly EditError[]): string {
  if (errors.length === 0) {
    return "";
  }
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return `${errors.length === 1 ? "1 edit error" : `${errors.length} edit errors`}: ${first.message}${more}`;
}
