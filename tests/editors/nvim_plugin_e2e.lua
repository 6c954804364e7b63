-- End-to-end test of the Neovim plugin (editors/neovim) with llm-edit-lsp,
-- Neovim 0.7+ headless, no other plugins or config:
--
--   LLM_EDIT_LSP=target/release/llm-edit-lsp \
--     timeout 90 nvim --headless -u NONE -i NONE -n -c "luafile tests/editors/nvim_plugin_e2e.lua"
--
-- Loads the plugin from editors/neovim through 'runtimepath', calls
-- require('llm_edit').setup{server = $LLM_EDIT_LSP} and drives its user
-- commands in a temporary workspace (a git root below the working
-- directory), checking buffers, files on disk, vim.notify messages,
-- registers and the statusline function:
--   1. the server starts for a file buffer, with the git root as its root;
--   2. :LlmEditApply applies the current buffer (a response);
--   3. :'<,'>LlmEditApply applies only the selected block;
--   4. :LlmEditApply a applies register a to a file that is not open;
--      :LlmEditClipboard says there is no clipboard provider, then, with
--      one, applies register +;
--   5. a payload whose search text is missing: the server's refusal reaches
--      vim.notify, nothing changes;
--   6. :LlmEditRetryPrompt yanks that payload's retry prompt;
--   7. :LlmEditPreview shows the diff in a `diff` buffer; `a` applies it;
--   8. :LlmEditCapture, a change in a buffer, then a preview of an LLM edit
--      of that file: status() says "llm-edit: 1 ~M" (llm-edit/status);
--      applying merges both changes and the count goes away; :LlmEditRelease;
--   9. an LLM edit of a line you changed too: the refusal and a `conflict`
--      diagnostic and ~M in status(); :LlmEditResolve diff on that line
--      shows both sides, :LlmEditResolve theirs takes the LLM's;
--  10. the preview's text edits in utf-8, utf-16 and utf-32 positions;
--      the help file's tags are valid and :help finds them;
--  11. without a server on PATH, vim.notify says how to install it (when
--      a file opens, and for a command).
-- A Lua error does not change Neovim's exit code, so everything runs under
-- pcall: `qa!` on success, `cq!` (exit 1) on failure.

local TIMEOUT_MS = 10000

local function log(...)
  io.stderr:write(table.concat({ ... }, " ") .. "\n")
end

local function fail(message)
  error(message, 2)
end

local function expect_equal(actual, expected, what)
  if actual ~= expected then
    fail(string.format("%s:\n--- expected\n%s\n--- actual\n%s", what, tostring(expected), tostring(actual)))
  end
end

local function write_file(path, text)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function read_file(path)
  local f = assert(io.open(path, "r"))
  local text = f:read("*a")
  f:close()
  return text
end

local function lines(list)
  return table.concat(list, "\n") .. "\n"
end

--- The text of a buffer, newline-terminated lines.
local function buffer_text(bufnr)
  return lines(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
end

--- Waits until `check()` returns a truthy value; returns it or fails.
local function wait_for(what, check)
  local value
  local ok = vim.wait(TIMEOUT_MS, function()
    value = check()
    return value and true or false
  end, 20)
  if not ok then
    fail("timed out waiting for " .. what)
  end
  return value
end

-- Every vim.notify call: {message, level}.
local notes = {}
vim.notify = function(message, level)
  notes[#notes + 1] = { message = message, level = level }
  log("  notify[" .. tostring(level) .. "]: " .. message)
end

--- Waits for the next notification matching `pattern` (a Lua pattern) after
--- the first `from` ones; returns it.
local function wait_note(from, pattern, what)
  return wait_for(what or ("a notification matching " .. pattern), function()
    for i = from + 1, #notes do
      if notes[i].message:find(pattern) then
        return notes[i]
      end
    end
    return nil
  end)
end

local function search_replace(path, search, replace)
  local out = { path, "<<<<<<< SEARCH" }
  vim.list_extend(out, search)
  out[#out + 1] = "======="
  vim.list_extend(out, replace)
  out[#out + 1] = ">>>>>>> REPLACE"
  return out
end

local function open(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf()
end

local root, llm_edit

--- 1. The server starts for a file buffer, rooted at the git root.
local function check_start()
  local app = open(root .. "/src/app.py")
  local client = wait_for("the client attached to src/app.py", function()
    local get = vim.lsp.get_clients or function(filter)
    return vim.lsp.buf_get_clients(filter.bufnr)
  end
  for _, c in pairs(get({ bufnr = app })) do
      if c.name == "llm-edit-lsp" and c.initialized then
        return c
      end
    end
    return nil
  end)
  expect_equal(client.config.root_dir, root, "the client's root (the git root)")
  log("ok: llm-edit-lsp started for src/app.py, root " .. client.config.root_dir)
  return app
end

--- 2. :LlmEditApply on the current buffer.
local function check_apply_buffer(app)
  local response = open(root .. "/response.md")
  local text = { "Here is the change:", "", "```python" }
  vim.list_extend(text, search_replace("src/app.py", { "def greet():", '    print("hi")' },
    { "def greet(name):", '    print(f"hi {name}")' }))
  text[#text + 1] = "```"
  vim.api.nvim_buf_set_lines(response, 0, -1, false, text)
  local from = #notes
  vim.cmd("LlmEditApply")
  local note = wait_note(from, "^llm%-edit: Applied")
  expect_equal(note.message, "llm-edit: Applied 1 edit to 1 file", "the outcome message")
  expect_equal(buffer_text(app), lines({ "def greet(name):", '    print(f"hi {name}")', "", "VALUE = 1" }),
    "src/app.py buffer after :LlmEditApply")
  expect_equal(read_file(root .. "/src/app.py"), lines({ "def greet():", '    print("hi")', "", "VALUE = 1" }),
    "src/app.py on disk (nothing is saved)")
  log("ok: :LlmEditApply applied the current buffer")
  return response
end

--- 3. :'<,'>LlmEditApply applies the selected block only.
local function check_apply_range(response)
  local text = search_replace("src/app.py", { "VALUE = 1" }, { "VALUE = 100" })
  local second = search_replace("src/util.py", { "    return a - b" }, { "    return a + b" })
  local first_line = #text + 2
  text[#text + 1] = ""
  vim.list_extend(text, second)
  vim.api.nvim_buf_set_lines(response, 0, -1, false, text)
  vim.cmd(string.format("normal! %dGV%dG\27", first_line, #text))
  local from = #notes
  vim.cmd("'<,'>LlmEditApply")
  local note = wait_note(from, "^llm%-edit: Applied")
  expect_equal(note.message, "llm-edit: Applied 1 edit to 1 file", "the outcome message")
  local util = vim.fn.bufnr(root .. "/src/util.py")
  if util < 0 then
    fail("src/util.py was not loaded by the apply")
  end
  expect_equal(buffer_text(util), lines({ "def add(a, b):", "    return a + b" }), "src/util.py after the range apply")
  local app = vim.fn.bufnr(root .. "/src/app.py")
  expect_equal(vim.api.nvim_buf_get_lines(app, 3, 4, false)[1], "VALUE = 1",
    "src/app.py line 4 (its block was not selected)")
  log("ok: :'<,'>LlmEditApply applied the selected block only")
end

--- 4. :LlmEditApply a applies register a (its file is not open).
local function check_apply_register()
  local payload = lines(search_replace("src/conf.py", { "DEBUG = False" }, { "DEBUG = True" }))
  vim.fn.setreg("a", payload)
  local from = #notes
  vim.cmd("LlmEditApply a")
  wait_note(from, "^llm%-edit: Applied 1 edit to 1 file$")
  local conf = vim.fn.bufnr(root .. "/src/conf.py")
  if conf < 0 then
    fail("src/conf.py was not loaded by the apply")
  end
  expect_equal(buffer_text(conf), lines({ "DEBUG = True", "PORT = 8080" }), "src/conf.py buffer after :LlmEditApply a")
  expect_equal(read_file(root .. "/src/conf.py"), lines({ "DEBUG = False", "PORT = 8080" }), "src/conf.py on disk")
  log("ok: :LlmEditApply a applied register a")
end

--- 4b. :LlmEditClipboard: without a clipboard provider (headless Neovim
--- usually has none), a clear message; with one (a Lua provider installed
--- here), it applies register +.
local function check_clipboard()
  local from = #notes
  if vim.fn.has("clipboard") ~= 1 then
    vim.cmd("LlmEditClipboard")
    local note = wait_note(from, "no clipboard provider")
    log("ok: :LlmEditClipboard without a clipboard: " .. note.message)
    local store = { { "" }, "v" }
    local function copy(l, t)
      store = { l, t }
    end
    local function paste()
      return store
    end
    vim.g.clipboard = { name = "e2e", copy = { ["+"] = copy, ["*"] = copy }, paste = { ["+"] = paste, ["*"] = paste } }
    vim.g.loaded_clipboard_provider = nil
    vim.cmd("runtime autoload/provider/clipboard.vim")
    if vim.fn.has("clipboard") ~= 1 then
      fail("the test's clipboard provider was not taken")
    end
  end
  vim.fn.setreg("+", lines(search_replace("src/conf.py", { "PORT = 8080" }, { "PORT = 8081" })))
  from = #notes
  vim.cmd("LlmEditClipboard")
  wait_note(from, "^llm%-edit: Applied 1 edit to 1 file$")
  local conf = vim.fn.bufnr(root .. "/src/conf.py")
  expect_equal(buffer_text(conf), lines({ "DEBUG = True", "PORT = 8081" }), "src/conf.py after :LlmEditClipboard")
  vim.api.nvim_buf_set_lines(conf, 1, 2, false, { "PORT = 8080" })
  log("ok: :LlmEditClipboard applied register +")
end

--- 5. A refusal's message reaches vim.notify; nothing changes.
local function check_refusal()
  local payload = lines(search_replace("src/conf.py", { "PORT = 9090" }, { "PORT = 1" }))
  vim.fn.setreg("b", payload)
  local from = #notes
  vim.cmd("LlmEditApply b")
  local note = wait_note(from, "^llm%-edit: 1 of 1 edit failed: ")
  log("ok: the refusal reached vim.notify: " .. note.message)
  if note.level ~= vim.log.levels.ERROR then
    fail("the refusal's level is " .. tostring(note.level) .. ", not ERROR")
  end
  local conf = vim.fn.bufnr(root .. "/src/conf.py")
  expect_equal(buffer_text(conf), lines({ "DEBUG = True", "PORT = 8080" }), "src/conf.py after the refusal")
  return note
end

--- 6. :LlmEditRetryPrompt yanks the retry prompt of the last payload.
local function check_retry_prompt()
  vim.fn.setreg('"', "")
  local from = #notes
  vim.cmd("LlmEditRetryPrompt")
  local note = wait_note(from, "^llm%-edit: retry prompt")
  local prompt = vim.fn.getreg('"')
  if not prompt:find("^@retry_context") or not prompt:find("PORT = 9090", 1, true) then
    fail("the unnamed register does not hold the retry prompt:\n" .. prompt)
  end
  expect_equal(vim.fn.getreg("+"), prompt, "register + (the test's clipboard provider)")
  log("ok: " .. note.message .. "; it starts with " .. prompt:match("^[^\n]*"))
end

--- 7. :LlmEditPreview shows a diff buffer; `a` applies.
local function check_preview()
  local payload = lines(search_replace("src/conf.py", { "PORT = 8080" }, { "PORT = 9000" }))
  vim.fn.setreg("c", payload)
  local before = vim.api.nvim_get_current_buf()
  vim.cmd("LlmEditPreview c")
  local preview = wait_for("the preview buffer", function()
    local b = vim.api.nvim_get_current_buf()
    return b ~= before and vim.bo[b].filetype == "diff" and b or nil
  end)
  local shown = buffer_text(preview)
  log("ok: preview buffer:\n" .. shown)
  expect_equal(shown, lines({
    "# llm-edit preview: 1 file(s). a: apply, q: close",
    "# M  src/conf.py",
    "--- a/src/conf.py",
    "+++ b/src/conf.py",
    "@@ -1,2 +1,2 @@",
    " DEBUG = True",
    "-PORT = 8080",
    "+PORT = 9000",
  }), "the preview buffer")
  local conf = vim.fn.bufnr(root .. "/src/conf.py")
  expect_equal(buffer_text(conf), lines({ "DEBUG = True", "PORT = 8080" }), "src/conf.py after the preview")
  local from = #notes
  vim.cmd("normal a")
  wait_note(from, "^llm%-edit: Applied 1 edit to 1 file$")
  expect_equal(buffer_text(conf), lines({ "DEBUG = True", "PORT = 9000" }), "src/conf.py after `a` in the preview")
  if vim.api.nvim_buf_is_valid(preview) then
    fail("the preview buffer is still there after `a`")
  end
  log("ok: `a` in the preview applied it and closed the preview")
end

--- 8. Capture, change a buffer, preview an LLM edit of it: ~M.
local function check_conflict_status()
  -- The server refuses a capture while a response changed within 1.5 s
  -- (it may still be streaming in): close it first.
  vim.cmd("bwipeout! " .. vim.fn.fnameescape(root .. "/response.md"))
  local from = #notes
  vim.cmd("LlmEditCapture")
  wait_note(from, "^llm%-edit: captured context 'default'")
  local util = vim.fn.bufnr(root .. "/src/util.py")
  -- The user adds a line to src/util.py after the capture.
  vim.api.nvim_buf_set_lines(util, 0, 0, false, { "# utilities" })
  expect_equal(llm_edit.status(), "", "status() before any LLM edit")
  -- The LLM (which saw the snapshot) edits the same file elsewhere.
  local payload = lines(search_replace("src/util.py", { "def add(a, b):" }, { "def add(a: int, b: int) -> int:" }))
  vim.fn.setreg("d", payload)
  vim.cmd("LlmEditPreview d")
  local preview = wait_for("the preview buffer", function()
    local b = vim.api.nvim_get_current_buf()
    return vim.bo[b].filetype == "diff" and b or nil
  end)
  -- The preview is of the merge: the user's new first line stays.
  expect_equal(buffer_text(preview), lines({
    "# llm-edit preview: 1 file(s). a: apply, q: close",
    "# ~M src/util.py",
    "--- a/src/util.py",
    "+++ b/src/util.py",
    "@@ -1,3 +1,3 @@",
    " # utilities",
    "-def add(a, b):",
    "+def add(a: int, b: int) -> int:",
    "     return a + b",
  }), "the preview of an LLM edit of a ~M file")
  wait_for("status() == 'llm-edit: 1 ~M'", function()
    return llm_edit.status() == "llm-edit: 1 ~M"
  end)
  log("ok: status() = " .. llm_edit.status())
  from = #notes
  vim.cmd("normal a")
  wait_note(from, "^llm%-edit: Applied 1 edit to 1 file$")
  expect_equal(buffer_text(util), lines({ "# utilities", "def add(a: int, b: int) -> int:", "    return a + b" }),
    "src/util.py after merging the LLM edit with the user's change")
  wait_for("status() == '' after the apply", function()
    return llm_edit.status() == ""
  end)
  log("ok: the apply merged both changes; status() = ''")
  from = #notes
  vim.cmd("LlmEditRelease")
  wait_note(from, "^llm%-edit: released context 'default'")
  log("ok: :LlmEditRelease")
end

--- 9. A conflict: refused with a `conflict` diagnostic; :LlmEditResolve
--- theirs takes the LLM's lines.
local function check_conflict_resolve()
  local util = vim.fn.bufnr(root .. "/src/util.py")
  vim.cmd("buffer " .. util)
  local from = #notes
  vim.cmd("LlmEditCapture")
  wait_note(from, "^llm%-edit: captured context 'default'")
  -- The user changes the line the LLM changes too.
  vim.api.nvim_buf_set_lines(util, 2, 3, false, { "    return b + a" })
  vim.fn.setreg("e", lines(search_replace("src/util.py", { "    return a + b" }, { "    return a * b" })))
  from = #notes
  vim.cmd("LlmEditApply e")
  local note = wait_note(from, "change the same lines")
  log("ok: the conflict reached vim.notify: " .. note.message)
  local diagnostic = wait_for("a conflict diagnostic on src/util.py", function()
    for _, d in ipairs(vim.diagnostic.get(util)) do
      if d.source == "llm-edit" and d.code == "conflict" then
        return d
      end
    end
    return nil
  end)
  expect_equal(diagnostic.lnum, 2, "the conflict diagnostic's line (0-based)")
  log("ok: conflict diagnostic on line 3: " .. diagnostic.message)
  expect_equal(buffer_text(util), lines({ "# utilities", "def add(a: int, b: int) -> int:", "    return b + a" }),
    "src/util.py after the refused apply")
  wait_for("status() == 'llm-edit: 1 ~M' after the refused apply", function()
    return llm_edit.status() == "llm-edit: 1 ~M"
  end)
  log("ok: status() = " .. llm_edit.status())
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  from = #notes
  vim.cmd("LlmEditResolve diff")
  local shown = wait_for("the conflict's diff buffer", function()
    local b = vim.api.nvim_get_current_buf()
    return b ~= util and vim.bo[b].filetype == "diff" and b or nil
  end)
  expect_equal(buffer_text(shown), lines({
    "--- a/src/util.py (your buffer, line 3)",
    "+++ b/src/util.py (the LLM's version)",
    "@@ -1 +1 @@",
    "-    return b + a",
    "+    return a * b",
  }), "the diff of the conflict")
  local diff_from = from
  vim.cmd("normal q")
  expect_equal(vim.api.nvim_get_current_buf(), util, "the buffer after `q` in the diff")
  log("ok: :LlmEditResolve diff showed the conflict's diff")
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  from = #notes
  vim.cmd("LlmEditResolve theirs")
  wait_note(from, "^llm%-edit: took the LLM's version")
  for i = diff_from + 1, #notes do
    if notes[i].message:find("^llm%-edit: %-%-%-") then
      fail("the diff was notified too: " .. notes[i].message)
    end
  end
  expect_equal(buffer_text(util), lines({ "# utilities", "def add(a: int, b: int) -> int:", "    return a * b" }),
    "src/util.py after :LlmEditResolve theirs")
  log("ok: :LlmEditResolve theirs took the LLM's line")
  from = #notes
  vim.cmd("LlmEditRelease")
  wait_note(from, "^llm%-edit: released context 'default'")
end

--- 10. The preview's text edits in each position encoding (the server
--- sends whole lines; a client may get character ranges from elsewhere).
local function check_text_edits()
  local text = "a" .. "\240\159\152\128" .. "b\nsecond\n" -- U+1F600: 4 bytes, 2 UTF-16 units
  local cases = { ["utf-8"] = 5, ["utf-16"] = 3, ["utf-32"] = 2 }
  for encoding, col in pairs(cases) do
    local edits = {
      { range = { start = { line = 0, character = col }, ["end"] = { line = 0, character = col + 1 } }, newText = "c" },
      { range = { start = { line = 2, character = 0 }, ["end"] = { line = 2, character = 0 } }, newText = "third\n" },
    }
    expect_equal(llm_edit._apply_text_edits(text, edits, encoding),
      "a" .. "\240\159\152\128" .. "c\nsecond\nthird\n", "text edits in " .. encoding)
  end
  log("ok: text edits in utf-8, utf-16 and utf-32")
end

--- 10b. The help file's tags are valid (no duplicates) and :help finds them.
local function check_help(plugin)
  local copy = vim.fn.tempname()
  vim.fn.mkdir(copy .. "/doc", "p")
  write_file(copy .. "/doc/llm_edit.txt", read_file(plugin .. "/doc/llm_edit.txt"))
  vim.cmd("helptags " .. vim.fn.fnameescape(copy .. "/doc"))
  vim.opt.runtimepath:prepend(copy)
  vim.cmd("help :LlmEditApply")
  local line = vim.api.nvim_get_current_line()
  if not line:find("*:LlmEditApply*", 1, true) then
    fail(":help :LlmEditApply landed on: " .. line)
  end
  vim.cmd("helpclose")
  log("ok: :help :LlmEditApply")
end

--- 11. No server on PATH: vim.notify says how to install it.
local function check_missing_server()
  local other = vim.fn.tempname()
  write_file(other .. "/.git/HEAD", "ref: refs/heads/main\n")
  write_file(other .. "/x.txt", "x\n")
  vim.env.PATH = "/nonexistent"
  local from = #notes
  package.loaded.llm_edit = nil
  require("llm_edit").setup({})
  open(other .. "/x.txt")
  local note = wait_note(from, "not found on PATH")
  if not note.message:find("cargo install", 1, true) then
    fail("the message does not say how to install the server: " .. note.message)
  end
  log("ok: " .. note.message)
  -- Once per session when opening files; every time for a command.
  from = #notes
  vim.cmd("LlmEditApply")
  wait_note(from, "not found on PATH")
  log("ok: :LlmEditApply without a server says it too")
end

local function main()
  local server = os.getenv("LLM_EDIT_LSP")
  if not server or server == "" then
    fail("set LLM_EDIT_LSP to the llm-edit-lsp binary")
  end
  local plugin = vim.fn.getcwd() .. "/editors/neovim"
  if vim.fn.isdirectory(plugin) ~= 1 then
    fail("run from the repository root (no " .. plugin .. ")")
  end
  vim.opt.runtimepath:prepend(plugin)
  vim.o.hidden = true

  root = vim.fn.resolve(vim.fn.tempname())
  vim.fn.mkdir(root .. "/.git", "p")
  write_file(root .. "/src/app.py", lines({ "def greet():", '    print("hi")', "", "VALUE = 1" }))
  write_file(root .. "/src/util.py", lines({ "def add(a, b):", "    return a - b" }))
  write_file(root .. "/src/conf.py", lines({ "DEBUG = False", "PORT = 8080" }))

  llm_edit = require("llm_edit")
  llm_edit.setup({ server = server })
  local app = check_start()
  local response = check_apply_buffer(app)
  check_apply_range(response)
  check_apply_register()
  check_clipboard()
  check_refusal()
  check_retry_prompt()
  check_preview()
  check_conflict_status()
  check_conflict_resolve()
  check_text_edits()
  check_help(plugin)
  check_missing_server()
  vim.lsp.stop_client((vim.lsp.get_clients or vim.lsp.get_active_clients)())
end

local ok, err = pcall(main)
if ok then
  log("nvim plugin e2e: all checks passed")
  vim.cmd("qa!")
else
  log("nvim plugin e2e FAILED: " .. tostring(err))
  vim.cmd("cq!")
end
