-- End-to-end test of the agent link (docs/lsp.md, "The agent link") in
-- Neovim 0.7+ headless, no plugins or config:
--
--   LLM_EDIT_LSP=target/release/llm-edit-lsp LLM_EDIT_AGENT_PYTHON=<python with mcp> \
--     timeout 90 nvim --headless -u NONE -i NONE -n -c "luafile tests/editors/nvim_agent_e2e.lua"
--
-- Neovim runs the language server on a workspace with src/app.py open and
-- changed in its buffer, unsaved. An agent then reads the file (from disk,
-- through the MCP server's read_file) and edits another part of it through
-- the MCP server (`llm-edit-lsp mcp --root ROOT`, its `edit` tool), driven
-- by tests/editors/agent_mcp.py with the official MCP Python SDK
-- ($LLM_EDIT_AGENT_PYTHON, default python3). The MCP server finds the
-- language server's socket and routes the edit through it. Checks:
--   1. the server listens on .llm-edit/lsp.sock (a socket, mode 0600);
--   2. the agent's answer says route `editor`, applied, status `~M`;
--   3. the buffer holds both changes (the user's and the agent's, merged
--      on the buffer's text) and is still unsaved; the disk is untouched;
--   4. an agent edit that conflicts with the user's change is refused
--      with `conflict`, the buffer left alone;
--   5. when the server stops, the socket is gone.
-- A Lua error does not change Neovim's exit code, so everything runs under
-- pcall: `qa!` on success, `cq!` (exit 1) on failure.

local TIMEOUT_MS = 15000

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

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
end

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

local function start_server(root)
  local server = os.getenv("LLM_EDIT_LSP")
  if not server or server == "" then
    fail("set LLM_EDIT_LSP to the llm-edit-lsp binary")
  end
  local id = vim.lsp.start_client({
    name = "llm-edit-lsp",
    cmd = { server, "lsp" },
    root_dir = root,
  })
  if not id then
    fail("vim.lsp.start_client failed for " .. server)
  end
  local client = vim.lsp.get_client_by_id(id)
  wait_for("initialize", function()
    return client.initialized
  end)
  return client
end

--- The agent: one MCP session (tests/editors/agent_mcp.py).
local function agent_command(root)
  local python = os.getenv("LLM_EDIT_AGENT_PYTHON")
  if not python or python == "" then
    python = "python3"
  end
  return { python, "tests/editors/agent_mcp.py", root }
end

--- Runs the agent with `call` without blocking Neovim's loop (which must
--- answer the server's workspace/applyEdit meanwhile); its tool result.
local function agent_edit(root, call)
  local out, err, code = {}, {}, nil
  local job = vim.fn.jobstart(agent_command(root), {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      err = data
    end,
    on_exit = function(_, c)
      code = c
    end,
  })
  if job <= 0 then
    fail("cannot run the agent: " .. table.concat(agent_command(root), " "))
  end
  vim.fn.chansend(job, vim.fn.json_encode(call))
  vim.fn.chanclose(job, "stdin")
  wait_for("the agent's answer", function()
    return code ~= nil and #out > 0
  end)
  if code ~= 0 then
    fail("the agent failed (exit " .. code .. "): " .. table.concat(err, "\n"))
  end
  return vim.fn.json_decode(table.concat(out, "\n"))
end

local ORIGINAL = 'def greet():\n    print("hi")\n\nVALUE = 1\n'

--- An agent session: read src/app.py (from disk), then edit it.
local function read_and_edit(old, new)
  return {
    read = { "src/app.py" },
    tool = "edit",
    arguments = { path = "src/app.py", old_string = old, new_string = new },
  }
end

local function main()
  local root = vim.fn.resolve(vim.fn.tempname())
  local path = root .. "/src/app.py"
  write_file(path, ORIGINAL)
  local client = start_server(root)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local app = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(app, client.id)

  -- 1. The socket.
  local socket = root .. "/.llm-edit/lsp.sock"
  local st = wait_for("the agent link socket", function()
    return vim.loop.fs_lstat(socket)
  end)
  expect_equal(st.type, "socket", "the type of .llm-edit/lsp.sock")
  expect_equal(string.format("%o", st.mode % 512), "600", "the mode of .llm-edit/lsp.sock")
  log("ok: the server listens on .llm-edit/lsp.sock (0600)")

  -- The user changes the last line, unsaved.
  vim.api.nvim_buf_set_lines(app, 3, 4, false, { "VALUE = 2" })
  wait_for("the change to reach the server", function()
    return vim.lsp.util.buf_versions[app] and vim.lsp.util.buf_versions[app] > 0
  end)

  -- 2. + 3. The agent edits the function, from the file as on disk.
  local answer = agent_edit(
    root,
    read_and_edit('def greet():\n    print("hi")', 'def greet(name):\n    print("hi", name)')
  )
  expect_equal(answer.route, "editor", "the route (answer: " .. vim.inspect(answer) .. ")")
  expect_equal(answer.applied, true, "applied (answer: " .. vim.inspect(answer) .. ")")
  expect_equal(answer.files[1].status, "~M", "the file's status")
  local merged = 'def greet(name):\n    print("hi", name)\n\nVALUE = 2\n'
  wait_for("the merged buffer", function()
    return buffer_text(app) == merged
  end)
  expect_equal(buffer_text(app), merged, "the buffer after the agent's edit")
  expect_equal(vim.bo[app].modified, true, "the buffer is still unsaved")
  expect_equal(read_file(path), ORIGINAL, "src/app.py on disk")
  log("ok: the agent's edit was merged into the unsaved buffer; the disk is untouched")

  -- 4. A conflict with the user's change.
  answer = agent_edit(root, read_and_edit("VALUE = 1", "VALUE = 10"))
  expect_equal(answer.route, "editor", "the route of the conflicting edit")
  expect_equal(answer.applied, false, "the conflicting edit is not applied")
  expect_equal(answer.errors[1].kind, "conflict", "the refusal's kind (" .. vim.inspect(answer.errors) .. ")")
  expect_equal(buffer_text(app), merged, "the buffer after the refused edit")
  log("ok: a conflicting agent edit is refused with `conflict`")

  -- 5. The socket goes with the server.
  client.stop()
  wait_for("the socket's removal", function()
    return vim.loop.fs_lstat(socket) == nil
  end)
  log("ok: the socket is removed when the server stops")
end

local ok, err = pcall(main)
if ok then
  log("nvim agent e2e: all checks passed")
  vim.cmd("qa!")
else
  log("nvim agent e2e FAILED: " .. tostring(err))
  vim.cmd("cq!")
end
