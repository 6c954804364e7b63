// The extension's manifest and sources agree: every contributed command is
// registered, and the pure modules stay free of `vscode` (so they run here).
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

// out-test/test/ → the extension's folder.
const root = path.resolve(__dirname, "..", "..");
const read = (file: string): string => fs.readFileSync(path.join(root, file), "utf8");

describe("manifest", () => {
  const manifest = JSON.parse(read("package.json")) as {
    main: string;
    contributes: { commands: { command: string }[] };
  };
  const extension = read("src/extension.ts");

  it("registers every contributed command, and only those", () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    const registered = [...extension.matchAll(/registerCommand\(\s*"([^"]+)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(registered, contributed);
  });

  it("points main at the bundle", () => {
    assert.equal(manifest.main, "./dist/extension.js");
  });

  it("keeps the pure modules free of vscode", () => {
    for (const file of ["src/args.ts", "src/status.ts", "src/serverPath.ts"]) {
      assert.doesNotMatch(read(file), /from\s+["']vscode|require\(["']vscode/, file);
    }
  });
});
