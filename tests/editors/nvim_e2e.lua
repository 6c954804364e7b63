-- End-to-end test of llm-edit-lsp in Neovim 0.7+ (no plugins, no config).
--
--   LLM_EDIT_LSP=target/release/llm-edit-lsp \
--     timeout 60 nvim --headless -u NONE -i NONE -n -c "luafile tests/editors/nvim_e2e.lua"
--
-- Checks, through Neovim's own LSP client (vim.lsp.start_client,
-- buf_attach_client, client.request_sync; the server's workspace/applyEdit
-- is answered by Neovim while request_sync waits):
--   1. llm-edit.apply edits an unsaved buffer (the search text exists only
--      in the buffer, not on disk);
--   2. a payload whose search text is missing publishes an `llm-edit`
--      diagnostic on its target buffer (vim.diagnostic.get);
--   3. a response buffer (markdown with a SEARCH/REPLACE block) offers an
--      "Apply this edit" code action; running its command edits a file
--      that is not open yet.
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
    fail(string.format("%s:\n--- expected\n%s\n--- actual\n%s", what, expected, tostring(actual)))
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

--- The text of a buffer, newline-terminated lines.
local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
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

--- A request answered within the timeout, or a failure naming it.
local function request(client, bufnr, method, params)
  local response, err = client.request_sync(method, params, TIMEOUT_MS, bufnr)
  if not response then
    fail(method .. " got no response: " .. tostring(err))
  end
  if response.err then
    fail(method .. " failed: " .. vim.inspect(response.err))
  end
  return response.result
end

local function execute(client, bufnr, command, argument)
  return request(client, bufnr, "workspace/executeCommand", {
    command = command,
    arguments = { argument },
  })
end

local function open(path, filetype)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  if filetype then
    vim.bo[bufnr].filetype = filetype
  end
  return bufnr
end

local function start_server(root)
  local server = os.getenv("LLM_EDIT_LSP")
  if not server or server == "" then
    fail("set LLM_EDIT_LSP to the llm-edit-lsp binary")
  end
  local id = vim.lsp.start_client({
    name = "llm-edit-lsp",
    cmd = { server, "lsp" },
    root_dir = root,
    init_options = { llmEdit = { matchMode = "tolerant" } },
  })
  if not id then
    fail("vim.lsp.start_client failed for " .. server)
  end
  local client = vim.lsp.get_client_by_id(id)
  wait_for("initialize", function()
    return client.initialized
  end)
  return id, client
end

--- 1. An unsaved buffer edited by llm-edit.apply.
local function check_apply_to_unsaved_buffer(client, root, app)
  vim.api.nvim_buf_set_lines(app, 1, 2, false, { '    print("hello")' })
  local payload = table.concat({
    "src/app.py",
    "```python",
    "<<<<<<< SEARCH",
    "def greet():",
    '    print("hello")',
    "=======",
    "def greet(name):",
    '    print(f"hello {name}")',
    ">>>>>>> REPLACE",
    "```",
    "",
  }, "\n")
  local result = execute(client, app, "llm-edit.apply", { payload = payload })
  if not result.applied then
    fail("llm-edit.apply did not apply: " .. vim.inspect(result))
  end
  expect_equal(
    buffer_text(app),
    'def greet(name):\n    print(f"hello {name}")\n\nVALUE = 1\n',
    "src/app.py buffer after llm-edit.apply"
  )
  expect_equal(read_file(root .. "/src/app.py"), 'def greet():\n    print("hi")\n\nVALUE = 1\n',
    "src/app.py on disk (nothing is saved)")
  log("ok: llm-edit.apply edited the unsaved buffer")
end

--- 2. A failing payload's diagnostic on its target buffer.
local function check_failure_diagnostic(client, app)
  local payload = table.concat({
    "src/app.py",
    "<<<<<<< SEARCH",
    "VALUE = 2",
    "=======",
    "VALUE = 3",
    ">>>>>>> REPLACE",
    "",
  }, "\n")
  local result = execute(client, app, "llm-edit.apply", { payload = payload })
  if result.applied or #result.errors == 0 then
    fail("a missing search text applied: " .. vim.inspect(result))
  end
  local diagnostics = wait_for("an llm-edit diagnostic on src/app.py", function()
    local found = vim.tbl_filter(function(d)
      return d.source == "llm-edit"
    end, vim.diagnostic.get(app))
    return #found > 0 and found or nil
  end)
  log("ok: diagnostic on src/app.py line " .. (diagnostics[1].lnum + 1) .. ": " .. diagnostics[1].message)
  expect_equal(buffer_text(app), 'def greet(name):\n    print(f"hello {name}")\n\nVALUE = 1\n',
    "src/app.py after a failing payload (unchanged)")
end

--- 3. A code action on a response buffer.
local function check_response_code_action(client, root)
  local response_lines = {
    "Here is the change:",
    "",
    "src/util.py",
    "```python",
    "<<<<<<< SEARCH",
    "def add(a, b):",
    "    return a - b",
    "=======",
    "def add(a, b):",
    "    return a + b",
    ">>>>>>> REPLACE",
    "```",
  }
  local response = open(root .. "/response.md", "markdown")
  vim.api.nvim_buf_set_lines(response, 0, -1, false, response_lines)
  vim.lsp.buf_attach_client(response, client.id)
  local uri = vim.uri_from_bufnr(response)
  local params = {
    textDocument = { uri = uri },
    range = { start = { line = 6, character = 0 }, ["end"] = { line = 6, character = 0 } },
    context = { diagnostics = {} },
  }
  -- The server analyzes a response after didOpen/didChange; poll.
  local action = wait_for("an \"Apply this edit\" code action", function()
    local response_ = client.request_sync("textDocument/codeAction", params, TIMEOUT_MS, response)
    for _, a in ipairs((response_ and response_.result) or {}) do
      if a.title:find("^Apply this edit") then
        return a
      end
    end
    return nil
  end)
  log("ok: code action: " .. action.title)
  local command = action.command
  local result = request(client, response, "workspace/executeCommand", {
    command = command.command,
    arguments = command.arguments,
  })
  if not result.applied then
    fail("the code action's command did not apply: " .. vim.inspect(result))
  end
  local util = vim.fn.bufnr(root .. "/src/util.py")
  if util < 0 then
    fail("src/util.py was not loaded by workspace/applyEdit")
  end
  expect_equal(buffer_text(util), "def add(a, b):\n    return a + b\n", "src/util.py buffer after the code action")
  log("ok: the code action edited src/util.py")
end

local function main()
  local root = vim.fn.tempname()
  write_file(root .. "/src/app.py", 'def greet():\n    print("hi")\n\nVALUE = 1\n')
  write_file(root .. "/src/util.py", "def add(a, b):\n    return a - b\n")
  local _, client = start_server(root)
  local app = open(root .. "/src/app.py", "python")
  vim.lsp.buf_attach_client(app, client.id)
  check_apply_to_unsaved_buffer(client, root, app)
  check_failure_diagnostic(client, app)
  check_response_code_action(client, root)
  client.stop()
end

local ok, err = pcall(main)
if ok then
  log("nvim e2e: all checks passed")
  vim.cmd("qa!")
else
  log("nvim e2e FAILED: " .. tostring(err))
  vim.cmd("cq!")
end
