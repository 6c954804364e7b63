// The files' statuses from the `llm-edit/status` notification (docs/lsp.md,
// docs/conflicts.md): kept per context, summed up for the status bar, listed
// for the quick pick, and turned into explorer decorations. No `vscode`
// import: unit-tested with node.

/** A file's status: "" in context and unchanged, `M` the LLM edits it, `A`
 * the LLM creates it, `~` your buffer differs from the snapshot, `~M` both. */
export type FileStatus = "" | "M" | "A" | "~" | "~M";

export interface StatusFile {
  path: string;
  status: FileStatus;
}

/** The `llm-edit/status` notification and the `llm-edit.status` result. */
export interface StatusParams {
  id: string;
  files: StatusFile[];
}

const STATUSES: readonly FileStatus[] = ["", "M", "A", "~", "~M"];

/** Whether a value is a well-formed `llm-edit/status` notification; files
 * with an unknown status are dropped by `normalize`, not rejected here. */
export function isStatusParams(value: unknown): value is StatusParams {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as { id?: unknown; files?: unknown };
  return (
    typeof v.id === "string" &&
    Array.isArray(v.files) &&
    v.files.every(
      (f: unknown) =>
        typeof f === "object" &&
        f !== null &&
        typeof (f as { path?: unknown }).path === "string" &&
        typeof (f as { status?: unknown }).status === "string",
    )
  );
}

/** The files with a known status. */
function normalize(files: readonly StatusFile[]): StatusFile[] {
  return files.filter((f) => (STATUSES as readonly string[]).includes(f.status));
}

/** How much a status asks for attention: `~M` first. */
export function statusRank(status: FileStatus): number {
  switch (status) {
    case "~M":
      return 4;
    case "M":
    case "A":
      return 3;
    case "~":
      return 2;
    default:
      return 1;
  }
}

/** What a status means, in a few words. */
export function statusMeaning(status: FileStatus): string {
  switch (status) {
    case "~M":
      return "you and the LLM both changed it";
    case "M":
      return "the LLM edits it";
    case "A":
      return "the LLM creates it";
    case "~":
      return "you changed it since the LLM saw it";
    default:
      return "in context, unchanged";
  }
}

/** The statuses of every context the server reported. */
export class StatusStore {
  private readonly contexts = new Map<string, StatusFile[]>();
  private cache: Map<string, FileStatus> | undefined;

  /** Records a notification (or a status result); returns the paths whose
   * merged status may have changed. */
  update(params: StatusParams): string[] {
    const before = this.merged();
    this.contexts.set(params.id, normalize(params.files));
    this.cache = undefined;
    return changedPaths(before, this.merged());
  }

  /** Forgets a context (released); returns the paths that changed. */
  release(id: string): string[] {
    const before = this.merged();
    this.contexts.delete(id);
    this.cache = undefined;
    return changedPaths(before, this.merged());
  }

  /** Forgets everything (the server restarted); returns the paths that changed. */
  clear(): string[] {
    const before = this.merged();
    this.contexts.clear();
    this.cache = undefined;
    return changedPaths(before, new Map());
  }

  /** The ids of the known contexts, sorted. */
  ids(): string[] {
    return [...this.contexts.keys()].sort();
  }

  /** Every file with its status; a file in several contexts gets the one
   * that asks for the most attention. Do not modify the map returned. */
  merged(): Map<string, FileStatus> {
    if (this.cache) {
      return this.cache;
    }
    const out = new Map<string, FileStatus>();
    for (const files of this.contexts.values()) {
      for (const f of files) {
        const known = out.get(f.path);
        if (known === undefined || statusRank(f.status) > statusRank(known)) {
          out.set(f.path, f.status);
        }
      }
    }
    this.cache = out;
    return out;
  }

  /** Each file's status per context, for the quick pick. */
  entries(): { id: string; path: string; status: FileStatus }[] {
    const out: { id: string; path: string; status: FileStatus }[] = [];
    for (const id of this.ids()) {
      for (const f of this.contexts.get(id) ?? []) {
        out.push({ id, path: f.path, status: f.status });
      }
    }
    return out;
  }
}

function changedPaths(before: Map<string, FileStatus>, after: Map<string, FileStatus>): string[] {
  const paths = new Set<string>();
  for (const [path, status] of before) {
    if (after.get(path) !== status) {
      paths.add(path);
    }
  }
  for (const [path, status] of after) {
    if (before.get(path) !== status) {
      paths.add(path);
    }
  }
  return [...paths].sort();
}

/** How many files have each status. */
export type Counts = Record<FileStatus, number>;

export function countStatuses(statuses: Iterable<FileStatus>): Counts {
  const counts: Counts = { "": 0, M: 0, A: 0, "~": 0, "~M": 0 };
  for (const s of statuses) {
    counts[s] += 1;
  }
  return counts;
}

/** What the status bar item shows. */
export interface StatusBarView {
  text: string;
  tooltip: string;
  /** Whether to use the warning background (a `~M` file). */
  warning: boolean;
}

/** The status bar item: the `~M` count first, then `M`, `A` and `~`;
 * "no context" when none was captured. */
export function statusBarView(store: StatusStore): StatusBarView {
  const ids = store.ids();
  if (ids.length === 0) {
    return {
      text: "$(edit) LLM: no context",
      tooltip:
        "LLM Edit: no context captured. Run \"LLM Edit: Capture context (open editors)\" " +
        "before showing your files to the LLM, to tell your changes from its edits.",
      warning: false,
    };
  }
  const merged = store.merged();
  const counts = countStatuses(merged.values());
  const parts = (["~M", "M", "A", "~"] as const).filter((s) => counts[s] > 0).map((s) => `${s} ${counts[s]}`);
  const text = `$(${counts["~M"] > 0 ? "warning" : "edit"}) LLM: ${parts.length > 0 ? parts.join(" ") : `${merged.size} in context`}`;
  const lines = [
    `LLM Edit — context${ids.length > 1 ? "s" : ""} ${ids.map((id) => `"${id}"`).join(", ")}: ${merged.size} file${merged.size === 1 ? "" : "s"}`,
    ...(["~M", "M", "A", "~", ""] as const)
      .filter((s) => counts[s] > 0)
      .map((s) => `${s === "" ? "unchanged" : s}: ${counts[s]} (${statusMeaning(s)})`),
    "Click to list the files.",
  ];
  return { text, tooltip: lines.join("\n"), warning: counts["~M"] > 0 };
}

/** One row of the quick pick. */
export interface StatusPickItem {
  label: string;
  description: string;
  path: string;
}

/** The quick pick's rows: `~M` first, then `M`/`A`, `~`, unchanged; by path. */
export function statusPickItems(store: StatusStore): StatusPickItem[] {
  const many = store.ids().length > 1;
  return store
    .entries()
    .sort((a, b) => statusRank(b.status) - statusRank(a.status) || a.path.localeCompare(b.path) || a.id.localeCompare(b.id))
    .map((e) => ({
      label: `${(e.status || "·").padEnd(2, " ")}  ${e.path}`,
      description: `${statusMeaning(e.status)}${many ? ` — context "${e.id}"` : ""}`,
      path: e.path,
    }));
}

/** An explorer decoration, with the theme colour's id. */
export interface DecorationView {
  badge: string;
  tooltip: string;
  color: string;
  propagate: boolean;
}

/** The explorer decoration of a status; none for unchanged files. */
export function decorationFor(status: FileStatus | undefined): DecorationView | undefined {
  switch (status) {
    case "~M":
      return {
        badge: "~M",
        tooltip: "LLM Edit: ~M — you and the LLM both changed it",
        color: "gitDecoration.conflictingResourceForeground",
        propagate: true,
      };
    case "M":
      return {
        badge: "M",
        tooltip: "LLM Edit: M — the LLM edits it",
        color: "gitDecoration.modifiedResourceForeground",
        propagate: false,
      };
    case "A":
      return {
        badge: "A",
        tooltip: "LLM Edit: A — the LLM creates it",
        color: "gitDecoration.addedResourceForeground",
        propagate: false,
      };
    case "~":
      return {
        badge: "~",
        tooltip: "LLM Edit: ~ — you changed it since the LLM saw it",
        color: "gitDecoration.untrackedResourceForeground",
        propagate: false,
      };
    default:
      return undefined;
  }
}
