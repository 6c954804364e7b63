#!/usr/bin/env bash
# End-to-end test of editors/helix in a real Helix, driven like a person
# would through tmux:
#
#   LLM_EDIT_LSP=target/release/llm-edit-lsp tests/editors/helix_e2e.sh
#
# Helix is taken from ../shared/tools/helix/hx (relative to the repository;
# HELIX_HX overrides it). Without it the test prints "SKIP helix (...)" and
# exits 0. Needs tmux.
#
# In a temporary workspace (three Python files, a response.md with four
# SEARCH/REPLACE blocks, the third of which does not match, and
# editors/helix/languages.toml copied to .helix/), with a private HOME (trust
# state, config and the `-v` log in $HOME/.cache/helix/helix.log):
#   1. the first start shows the workspace trust prompt: Enter (Trust), quit;
#   2. the second start attaches llm-edit-lsp: the failing block gets its
#      `not_found` diagnostic;
#   3. `space a` on block 1, "Apply all 4 LLM edits": refused ("1 of 4 edits
#      failed"), nothing changes;
#   4. the failing line of the response is corrected in the buffer: the
#      diagnostic goes away;
#   5. `space a`, "Apply all 4 LLM edits": "Applied 4 edits to 3 files";
#      `:wa`, `:qa`; the files on disk are exactly the expected text;
#   6. a `~M` conflict (a third start): `:lsp-workspace-command
#      llm-edit.captureContext {}` snapshots the open src/math.py, the user
#      changes a line the LLM also changes, "Apply the LLM edit" in
#      response2.md is refused with a `conflict`; on src/math.py the
#      conflict code actions: "Show diff" opens the region's diff, "Insert
#      both with conflict markers" writes the markers; `:wa`, `:qa`, checked
#      on disk.
# Every wait polls `tmux capture-pane` with a timeout (HELIX_E2E_TIMEOUT
# seconds, default 20). On failure it prints the last screen and the tail of
# the Helix log (HELIX_E2E_KEEP=1 keeps the workspace, HOME and log).
# With HELIX_E2E_SCREENS=DIR the screens a person sees are
# saved there (editors/helix/README.md shows them).
set -euo pipefail
cd "$(dirname "$0")/../.."

hx="${HELIX_HX:-../shared/tools/helix/hx}"
if [ ! -x "$hx" ]; then
  echo "SKIP helix (no Helix build in ../shared/tools/helix)"
  exit 0
fi
hx="$(realpath "$hx")"
if ! command -v tmux >/dev/null; then
  echo "helix_e2e: tmux is not installed" >&2
  exit 2
fi
server="${LLM_EDIT_LSP:-${CARGO_TARGET_DIR:-target}/release/llm-edit-lsp}"
if [ ! -x "$server" ]; then
  echo "helix_e2e: no server binary at $server; run cargo build --release or set LLM_EDIT_LSP" >&2
  exit 2
fi
server="$(realpath "$server")"
languages_toml="$(realpath editors/helix/languages.toml)"
timeout_s="${HELIX_E2E_TIMEOUT:-20}"
screens="${HELIX_E2E_SCREENS:-}"
if [ -n "$screens" ]; then
  mkdir -p "$screens"
  screens="$(realpath "$screens")"
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/helix-e2e.XXXXXX")"
ws="$tmp/ws"
home="$tmp/home"
sock="$tmp/tmux.sock"
log="$home/.cache/helix/helix.log"
cols=100
rows=30

cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  if [ -n "${HELIX_E2E_KEEP:-}" ]; then
    echo "kept $tmp (HELIX_E2E_KEEP)"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
set -E
trap 'fail "line $LINENO: $BASH_COMMAND failed"' ERR

tm() {
  tmux -S "$sock" "$@"
}

screen() {
  tm capture-pane -p -t hx 2>/dev/null || true
}

fail() {
  echo "FAIL: $*" >&2
  echo "--- last screen" >&2
  screen >&2
  echo "--- tail of $log" >&2
  if [ -f "$log" ]; then
    tail -n 40 "$log" | cut -c1-400 >&2
  else
    echo "(no log)" >&2
  fi
  exit 1
}

step() {
  echo "== $*"
}

# keys KEY...: tmux key names (Enter, Escape, Space, Down, ...).
keys() {
  tm send-keys -t hx "$@"
}

# text TEXT: literal text.
text() {
  tm send-keys -t hx -l "$1"
}

# run TEXT: the `:` command TEXT of Helix.
run() {
  text ":$1"
  keys Enter
}

# wait_for WHAT REGEX: polls the screen until a line matches (grep -E).
wait_for() {
  local deadline=$((SECONDS + timeout_s))
  while ! screen | grep -qE -- "$2"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out ($timeout_s s) waiting for $1"
    sleep 0.1
  done
}

# wait_gone WHAT REGEX: polls the screen until no line matches.
wait_gone() {
  local deadline=$((SECONDS + timeout_s))
  while screen | grep -qE -- "$2"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out ($timeout_s s) waiting for $1 to go"
    sleep 0.1
  done
}

# shot NAME: saves the screen as NAME.txt in $HELIX_E2E_SCREENS (when set),
# trailing blanks trimmed, runs of empty lines (below the text) squeezed.
shot() {
  [ -n "$screens" ] || return 0
  screen | sed -e 's/[[:space:]]*$//' | cat -s >"$screens/$1.txt"
}

# start_hx FILE: starts Helix on FILE in the workspace, in a detached tmux
# session of a fixed size (the first time) or in its pane again. A shell
# around Helix writes its exit status to $tmp/hx.status (tmux 3.3 may leave
# the exited process unreaped for a long while, with no pane_dead_status);
# the pane stays when Helix exits, so its last screen can be shown.
start_hx() {
  local cmd=(sh -c '"$@"; echo "$?" >"$0"' "$tmp/hx.status"
    env HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$home/.cache"
    XDG_DATA_HOME="$home/.local/share" XDG_STATE_HOME="$home/.local/state"
    PATH="$tmp/bin:$PATH" "$hx" -v -w "$ws" "$1")
  rm -f "$tmp/hx.status"
  if tm has-session -t hx 2>/dev/null; then
    tm respawn-pane -k -t hx -c "$ws" "${cmd[@]}"
  else
    tm -f /dev/null new-session -d -s hx -x "$cols" -y "$rows" -c "$ws" "${cmd[@]}" \; \
      set-option -t hx remain-on-exit on
  fi
}

# hx_exit: waits until Helix has exited; fails unless its status is 0.
hx_exit() {
  local deadline=$((SECONDS + timeout_s)) status
  until [ -s "$tmp/hx.status" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out ($timeout_s s) waiting for Helix to exit"
    sleep 0.1
  done
  status="$(cat "$tmp/hx.status")"
  [ "$status" = 0 ] || fail "Helix exited with status $status"
}

# selected: the screen's lines in reverse video (a menu's selected item),
# escapes removed.
selected() {
  tm capture-pane -e -p -t hx | grep $'\e\\[7m' | sed $'s/\e\\[[0-9;]*m//g' || true
}

# pick TITLE: in an open menu, moves the selection (reverse video) to the
# item TITLE, one Down at a time (each seen on the screen before the next),
# and chooses it.
pick() {
  local i before deadline
  wait_for "the menu item \"$1\"" "$(sed 's/[][\.*^$(){}+?|]/\\&/g' <<<"$1")"
  for i in $(seq 1 12); do
    before="$(selected)"
    if grep -qF -- "$1" <<<"$before"; then
      keys Enter
      return 0
    fi
    keys Down
    deadline=$((SECONDS + timeout_s))
    while [ "$(selected)" = "$before" ]; do
      [ "$SECONDS" -lt "$deadline" ] || fail "the menu selection did not move (looking for \"$1\")"
      sleep 0.05
    done
  done
  fail "could not select \"$1\" in the menu"
}

# expect_file PATH EXPECTED: the file on disk is exactly EXPECTED plus "\n".
expect_file() {
  if ! diff -u <(printf '%s\n' "$2") "$ws/$1" >"$tmp/diff"; then
    fail "$1 on disk is not the expected text:
$(cat "$tmp/diff")"
  fi
}

# wait_file PATH EXPECTED: polls until the file on disk is exactly EXPECTED
# plus "\n" (a `:wa` writes buffers asynchronously).
wait_file() {
  local deadline=$((SECONDS + timeout_s))
  until diff -q <(printf '%s\n' "$2") "$ws/$1" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || expect_file "$1" "$2"
    sleep 0.1
  done
}

# line_of PATH TEXT: the first line of PATH holding TEXT.
line_of() {
  grep -nF -- "$2" "$ws/$1" | head -n1 | cut -d: -f1
}

## The workspace.
mkdir -p "$ws/src" "$ws/.helix" "$home" "$tmp/bin"
ln -s "$server" "$tmp/bin/llm-edit-lsp"
# The shipped languages.toml, plus Python as its README's "Any language" shows
# (with only llm-edit-lsp: no Python server is needed here), so that conflict
# diagnostics and code actions show on src/*.py.
cp "$languages_toml" "$ws/.helix/languages.toml"
cat >>"$ws/.helix/languages.toml" <<'EOF'

[[language]]
name = "python"
language-servers = [
  { name = "llm-edit-lsp", only-features = ["code-action", "workspace-command", "diagnostics"] },
]
EOF

cat >"$ws/src/greet.py" <<'EOF'
def greet(name):
    return "Hello, " + name


def farewell(name):
    return "Bye, " + name
EOF
cat >"$ws/src/math.py" <<'EOF'
def add(a, b):
    return a + b


def sub(a, b):
    return a - b
EOF
cat >"$ws/src/shapes.py" <<'EOF'
class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side
EOF
cat >"$ws/response.md" <<'EOF'
Here are the changes.

src/greet.py
```python
<<<<<<< SEARCH
    return "Hello, " + name
=======
    return f"Hello, {name}!"
>>>>>>> REPLACE
```

src/math.py
```python
<<<<<<< SEARCH
def sub(a, b):
    return a - b
=======
def sub(a, b):
    return a - b


def mul(a, b):
    return a * b
>>>>>>> REPLACE
```

src/greet.py
```python
<<<<<<< SEARCH
    return "Goodbye, " + name
=======
    return f"Goodbye, {name}."
>>>>>>> REPLACE
```

src/shapes.py
```python
<<<<<<< SEARCH
        return self.side * self.side
=======
        return self.side ** 2
>>>>>>> REPLACE
```
EOF
cat >"$ws/response2.md" <<'EOF'
src/math.py
```python
<<<<<<< SEARCH
def add(a, b):
    return a + b
=======
def add(a, b):
    return a + b  # the sum
>>>>>>> REPLACE
```
EOF
original_greet="$(cat "$ws/src/greet.py")"
original_math="$(cat "$ws/src/math.py")"
original_shapes="$(cat "$ws/src/shapes.py")"
corrected_response="$(sed 's/return "Goodbye, " + name/return "Bye, " + name/' "$ws/response.md")"
block1="$(line_of response.md 'return "Hello, " + name')"
block3="$(grep -nF '<<<<<<< SEARCH' "$ws/response.md" | sed -n 3p | cut -d: -f1)"
fix_line="$(line_of response.md 'return "Goodbye, " + name')"

echo "helix: $("$hx" --version), server: $server, workspace: $ws"

step "1. first start: trust the workspace"
start_hx response.md
wait_for "the workspace trust prompt" "Trust this workspace\?"
shot trust-prompt
keys Enter
wait_gone "the workspace trust prompt" "Trust this workspace\?"
trust_files=("$home"/.local/share/helix/workspace_trust/*)
[ -f "${trust_files[0]}" ] || fail "no trust record under $home/.local/share/helix/workspace_trust"
run q
hx_exit

step "2. second start: the failing block's diagnostic"
start_hx response.md
wait_for "response.md open" "response\.md"
keys "${block3}gg"
wait_for "the cursor on line $block3" " ${block3}:1 *\$"
wait_for "the not_found diagnostic of edit 3" "edit 3 in src/greet.py: SEARCH not found"
wait_for "the whole message under the failing block" "exactly as they are in the file"
shot diagnostic

step "3. Apply all 4 LLM edits with a failing block: refused, nothing changes"
keys "${block1}gg"
wait_for "the cursor on line $block1" " ${block1}:1 *\$"
keys Space a
wait_for "the code action menu" "Copy retry prompt"
shot code-actions-failing
pick "Apply all 4 LLM edits"
wait_for "the failure message" "1 of 4 edits failed: edit 3 in src/greet.py"
shot apply-refused
expect_file src/greet.py "$original_greet"
expect_file src/math.py "$original_math"
expect_file src/shapes.py "$original_shapes"

step "4. correct the failing block: its diagnostic goes"
keys "${fix_line}gg"
wait_for "the cursor on line $fix_line" " ${fix_line}:1 *\$"
keys x s
text Goodbye
keys Enter c
text Bye
wait_for "the corrected line" "^ *$fix_line +return \"Bye, \" \+ name"
# Keys that reach Helix together with Escape are read as one Alt chord:
# Escape goes alone, once the text is in, and the next keys once it is done.
keys Escape
wait_for "normal mode" "^ NOR "
wait_gone "the diagnostic of edit 3" "SEARCH not found"

step "5. Apply all 4 LLM edits, :wa, :qa"
keys "${block1}gg"
wait_for "the cursor on line $block1" " ${block1}:1 *\$"
keys Space a
wait_for "the code action menu" "Apply all 4 LLM edits"
shot code-actions
pick "Apply all 4 LLM edits"
wait_for "the success message" "Applied 4 edits to 3 files"
shot applied
# The edited files are open in buffers now, unsaved: the buffer picker.
keys Space b
wait_for "src/shapes.py in the buffer picker" "src/shapes\.py"
shot buffers
keys Escape
wait_gone "the buffer picker" "src/shapes\.py"
run wa
wait_file src/greet.py 'def greet(name):
    return f"Hello, {name}!"


def farewell(name):
    return f"Goodbye, {name}."'
wait_file src/math.py 'def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b'
wait_file src/shapes.py 'class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2'
wait_file response.md "$corrected_response"
run qa
hx_exit

step "6. a ~M conflict: capture, change, apply (refused), show diff, insert both"
start_hx src/math.py
wait_for "src/math.py open" "src/math.py"
# The server is attached once the capture answers: retry until the snapshot exists.
deadline=$((SECONDS + timeout_s))
until [ -f "$ws/.llm-edit/context/default/manifest.json" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "llm-edit.captureContext did not write .llm-edit/context/default"
  run 'lsp-workspace-command llm-edit.captureContext {}'
  sleep 0.5
done
[ -f "$ws/.llm-edit/context/default/files/src/math.py" ] || fail "the capture does not hold src/math.py"
keys 2gg
wait_for "the cursor on line 2" " 2:1 *\$"
keys x s
text '\+ b'
keys Enter c
text '+ b  # mine'
wait_for "the changed line" "^ *2 +return a \+ b  # mine"
keys Escape
wait_for "normal mode" "^ NOR "
run 'o response2.md'
wait_for "the conflict diagnostic on response2.md" "edit 1 in src/math.py: your local changes"
keys 5gg
wait_for "the cursor on line 5" " 5:1 *\$"
keys Space a
pick "Apply the LLM edit"
wait_for "the conflict message" "1 of 1 edit failed: edit 1 in src/math.py: your local changes"
run 'o src/math.py'
wait_for "src/math.py shown" "src/math.py \[\+\]"
keys 2gg
wait_for "the cursor on line 2" " 2:1 *\$"
wait_for "the conflict diagnostic on src/math.py" "merge them by hand \\(this region: your line 2"
shot conflict-diagnostic
keys Space a
wait_for "the conflict code actions" "Insert both with conflict markers"
shot conflict-actions
pick "Show diff"
wait_for "the diff of the region" "^ *1 +--- a/src/math\.py \(your buffer, line 2\)"
wait_for "the diff's LLM line" "^ *5 +\+    return a \+ b  # the sum"
shot conflict-diff
run 'o src/math.py'
wait_for "src/math.py shown" "src/math.py \[\+\]"
keys 2gg
wait_for "the cursor on line 2" " 2:1 *\$"
keys Space a
pick "Insert both with conflict markers"
wait_for "the conflict markers" "^ *2 +<<<<<<< buffer"
shot conflict-both
run wa
wait_file src/math.py 'def add(a, b):
<<<<<<< buffer
    return a + b  # mine
=======
    return a + b  # the sum
>>>>>>> llm


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b'
run qa
hx_exit

echo "PASS helix ($("$hx" --version))"
