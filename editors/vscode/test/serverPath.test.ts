import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { candidateNames, expandHome, findServer, isPathLike, LookupEnv } from "../src/serverPath";

function env(over: Partial<LookupEnv> & { executables?: string[] }): LookupEnv {
  const executables = new Set(over.executables ?? []);
  return {
    setting: undefined,
    pathEnv: "/usr/local/bin:/usr/bin",
    platform: "linux",
    home: "/home/ann",
    isExecutable: (f) => executables.has(f),
    ...over,
  };
}

describe("findServer", () => {
  it("uses the setting when it is a path to an executable", () => {
    const r = findServer(env({ setting: "/opt/llm/llm-edit-lsp", executables: ["/opt/llm/llm-edit-lsp", "/usr/bin/llm-edit-lsp"] }));
    assert.deepEqual(r, { found: true, path: "/opt/llm/llm-edit-lsp", source: "setting" });
  });

  it("expands ~/ in the setting", () => {
    const r = findServer(env({ setting: "~/bin/llm-edit-lsp", executables: ["/home/ann/bin/llm-edit-lsp"] }));
    assert.deepEqual(r, { found: true, path: "/home/ann/bin/llm-edit-lsp", source: "setting" });
  });

  it("does not fall back to PATH when the setting's path is wrong, and says so", () => {
    const r = findServer(env({ setting: "/nope/llm-edit-lsp", executables: ["/usr/bin/llm-edit-lsp"] }));
    assert.equal(r.found, false);
    assert.match(!r.found ? r.message : "", /llmEdit\.serverPath is "\/nope\/llm-edit-lsp", which is not an executable file/);
    assert.match(!r.found ? r.message : "", /cargo install --path \./);
  });

  it("looks the default name up on PATH, first folder first", () => {
    const r = findServer(env({ setting: "", executables: ["/usr/bin/llm-edit-lsp", "/usr/local/bin/llm-edit-lsp"] }));
    assert.deepEqual(r, { found: true, path: "/usr/local/bin/llm-edit-lsp", source: "PATH" });
  });

  it("looks a bare command name from the setting up on PATH", () => {
    const r = findServer(env({ setting: "llm-edit-lsp-dev", executables: ["/usr/bin/llm-edit-lsp-dev", "/usr/bin/llm-edit-lsp"] }));
    assert.deepEqual(r, { found: true, path: "/usr/bin/llm-edit-lsp-dev", source: "PATH" });
  });

  it("falls back to ~/.cargo/bin", () => {
    const r = findServer(env({ executables: ["/home/ann/.cargo/bin/llm-edit-lsp"] }));
    assert.deepEqual(r, { found: true, path: "/home/ann/.cargo/bin/llm-edit-lsp", source: "cargo" });
  });

  it("says how to install it when it is nowhere", () => {
    const r = findServer(env({ pathEnv: undefined }));
    assert.equal(r.found, false);
    assert.match(!r.found ? r.message : "", /^llm-edit-lsp was not found on PATH nor in ~\/\.cargo\/bin\. Install it with `cargo install --path \.`/);
    assert.match(!r.found ? r.message : "", /llmEdit\.serverPath/);
  });

  it("ignores empty PATH entries", () => {
    const seen: string[] = [];
    findServer(env({ pathEnv: ":/a::", home: undefined, isExecutable: (f) => (seen.push(f), false) }));
    assert.deepEqual(seen, ["/a/llm-edit-lsp"]);
  });

  it("tries PATHEXT extensions on Windows", () => {
    const r = findServer(
      env({
        platform: "win32",
        pathEnv: "C:\\tools;C:\\bin",
        pathExt: ".COM;.EXE",
        home: "C:\\Users\\ann",
        executables: ["C:\\bin\\llm-edit-lsp.exe"],
      }),
    );
    assert.deepEqual(r, { found: true, path: "C:\\bin\\llm-edit-lsp.exe", source: "PATH" });
  });

  it("accepts a Windows setting without .exe", () => {
    const r = findServer(env({ platform: "win32", setting: "C:\\llm\\llm-edit-lsp", executables: ["C:\\llm\\llm-edit-lsp.exe"] }));
    assert.deepEqual(r, { found: true, path: "C:\\llm\\llm-edit-lsp.exe", source: "setting" });
  });
});

describe("helpers", () => {
  it("isPathLike", () => {
    assert.equal(isPathLike("llm-edit-lsp", "linux"), false);
    assert.equal(isPathLike("./llm-edit-lsp", "linux"), true);
    assert.equal(isPathLike("a\\b", "linux"), false);
    assert.equal(isPathLike("a\\b", "win32"), true);
    assert.equal(isPathLike("C:llm", "win32"), true);
  });

  it("expandHome", () => {
    assert.equal(expandHome("~/x/y", "/h", "linux"), "/h/x/y");
    assert.equal(expandHome("~", "/h", "linux"), "/h");
    assert.equal(expandHome("/a/~/b", "/h", "linux"), "/a/~/b");
    assert.equal(expandHome("~/x", undefined, "linux"), "~/x");
  });

  it("candidateNames", () => {
    assert.deepEqual(candidateNames("x", "linux"), ["x"]);
    assert.deepEqual(candidateNames("x", "win32", ".EXE;.CMD"), ["x.exe", "x.cmd", "x"]);
    assert.deepEqual(candidateNames("x.exe", "win32"), ["x.exe"]);
  });
});
