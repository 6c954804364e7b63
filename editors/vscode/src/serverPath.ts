// Finding the llm-edit-lsp binary: the `llmEdit.serverPath` setting, then
// PATH, then cargo's bin folder. No `vscode` import: unit-tested with node.

import * as path from "node:path";

/** The binary's name when the setting is empty. */
export const DEFAULT_SERVER = "llm-edit-lsp";

/** What the lookup needs from the machine (injected for the tests). */
export interface LookupEnv {
  /** The `llmEdit.serverPath` setting ("" or undefined: not set). */
  setting: string | undefined;
  /** The PATH environment variable. */
  pathEnv: string | undefined;
  /** PATHEXT (Windows only). */
  pathExt?: string;
  platform: NodeJS.Platform;
  /** The home folder, for `~/` in the setting and `~/.cargo/bin`. */
  home: string | undefined;
  /** Whether this path is an executable file. */
  isExecutable(file: string): boolean;
}

/** Where the binary was found. */
export type ServerSource = "setting" | "PATH" | "cargo";

export type Lookup =
  | { found: true; path: string; source: ServerSource }
  | { found: false; message: string };

/** How to install the server, for the "not found" messages. */
export const INSTALL_HINT =
  "Install it with `cargo install --path .` from a clone of the llm-edit-lsp " +
  "repository (it goes to ~/.cargo/bin), or set llmEdit.serverPath to the binary.";

function pathModule(platform: NodeJS.Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/** `~/x` → `<home>/x`; other paths unchanged. */
export function expandHome(file: string, home: string | undefined, platform: NodeJS.Platform): string {
  if (home && (file === "~" || file.startsWith("~/") || (platform === "win32" && file.startsWith("~\\")))) {
    return pathModule(platform).join(home, file.slice(1));
  }
  return file;
}

/** Whether the setting names a file (has a folder part) rather than a
 * command to look up on PATH. */
export function isPathLike(file: string, platform: NodeJS.Platform): boolean {
  return file.includes("/") || (platform === "win32" && (file.includes("\\") || /^[A-Za-z]:/.test(file)));
}

/** The file names a command may have: on Windows with each PATHEXT
 * extension when it has none. */
export function candidateNames(name: string, platform: NodeJS.Platform, pathExt?: string): string[] {
  if (platform !== "win32" || path.win32.extname(name) !== "") {
    return [name];
  }
  const exts = (pathExt || ".EXE;.CMD;.BAT;.COM")
    .split(";")
    .map((e) => e.trim())
    .filter(Boolean);
  return [...exts.map((e) => name + e.toLowerCase()), name];
}

/** Looks the server up: the setting when it is a path; else the setting's
 * (or the default) command name on PATH, then in ~/.cargo/bin. */
export function findServer(env: LookupEnv): Lookup {
  const p = pathModule(env.platform);
  const setting = (env.setting ?? "").trim();
  if (setting && isPathLike(setting, env.platform)) {
    const file = expandHome(setting, env.home, env.platform);
    for (const candidate of candidateNames(file, env.platform, env.pathExt)) {
      if (env.isExecutable(candidate)) {
        return { found: true, path: candidate, source: "setting" };
      }
    }
    return {
      found: false,
      message:
        `llmEdit.serverPath is "${setting}", which is not an executable file. ` +
        `Fix the setting, or clear it to look up ${DEFAULT_SERVER} on PATH. ${INSTALL_HINT}`,
    };
  }
  const name = setting || DEFAULT_SERVER;
  const names = candidateNames(name, env.platform, env.pathExt);
  const delimiter = env.platform === "win32" ? ";" : ":";
  const dirs = (env.pathEnv ?? "").split(delimiter).filter((d) => d.trim() !== "");
  for (const dir of dirs) {
    for (const n of names) {
      const candidate = p.join(dir, n);
      if (env.isExecutable(candidate)) {
        return { found: true, path: candidate, source: "PATH" };
      }
    }
  }
  if (env.home) {
    for (const n of names) {
      const candidate = p.join(env.home, ".cargo", "bin", n);
      if (env.isExecutable(candidate)) {
        return { found: true, path: candidate, source: "cargo" };
      }
    }
  }
  return {
    found: false,
    message: `${name} was not found on PATH nor in ~/.cargo/bin. ${INSTALL_HINT}`,
  };
}
