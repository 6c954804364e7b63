#!/usr/bin/env bash
# Builds, checks and packages the VS Code extension, as CI runs it
# (.ci/run): npm ci, typecheck, lint, unit tests, bundle (load the bundle
# with a stubbed vscode, then drive it against the server binary when one
# is at hand: $LLM_EDIT_LSP, ../../target/release, or PATH), package; then
# checks the .vsix holds the bundle.
set -euo pipefail
cd "$(dirname "$0")"

step() { echo "-- $*"; }

step "npm ci"
npm ci --no-audit --no-fund
step "typecheck (tsc --noEmit)"
npm run --silent typecheck
step "lint (eslint)"
npm run --silent lint
step "unit tests (node --test)"
npm run --silent test
step "bundle (esbuild -> dist/extension.js)"
npm run --silent bundle
step "the bundle loads (stubbed vscode)"
npm run --silent check-bundle
step "the bundle against the real server (stubbed vscode)"
server="${LLM_EDIT_LSP:-}"
built="${CARGO_TARGET_DIR:-../../target}/release/llm-edit-lsp"
if [ -z "$server" ] && [ -x "$built" ]; then
  server=$built
fi
if [ -z "$server" ]; then
  server=$(command -v llm-edit-lsp || true)
fi
if [ -n "$server" ]; then
  # Absolute: the test starts the server from its own workspace folder.
  npm run --silent e2e -- "$(realpath "$server")"
elif [ "${CI:-}" = true ]; then
  echo "no server binary under CI=true: .ci/run builds target/release first" >&2
  exit 1
else
  echo "skipped: no server binary (set LLM_EDIT_LSP, build target/release, or put llm-edit-lsp on PATH)"
fi
step "package (vsce)"
rm -f ./*.vsix
npm run --silent package
vsix="llm-edit-$(node -p 'require("./package.json").version').vsix"
if [ ! -f "$vsix" ]; then
  echo "ci.sh: $vsix was not made" >&2
  exit 1
fi
if command -v unzip >/dev/null; then
  listing=$(unzip -l "$vsix")
else
  listing=$(python3 -m zipfile -l "$vsix")
fi
echo "$listing"
if ! grep -q "extension/dist/extension.js" <<<"$listing"; then
  echo "ci.sh: $vsix has no extension/dist/extension.js" >&2
  exit 1
fi
echo "ci.sh: $vsix ok ($(wc -c <"$vsix") bytes)"
