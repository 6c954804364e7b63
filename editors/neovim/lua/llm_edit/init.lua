-- llm-edit: Neovim client of llm-edit-lsp (Neovim 0.7 to 0.11).
--
-- require('llm_edit').setup{} starts the server for file buffers (one
-- client per root: the git root of the file, else the working directory)
-- and defines the :LlmEdit* commands. See :help llm_edit.

local M = {}

local NAME = "llm-edit-lsp"
local INSTALL_HINT = "install it (`cargo install --path .` in a clone of llm-edit-lsp puts it in ~/.cargo/bin) "
  .. "or give its path: require('llm_edit').setup{ server = '/path/to/llm-edit-lsp' }"

local config = {
  server = nil, -- path of the llm-edit-lsp binary (default: llm-edit-lsp on PATH)
  cmd = nil, -- full command, overrides `server`
  filetypes = nil, -- nil: every file buffer; else a list of filetypes
  root_markers = { ".git" },
  settings = {}, -- initializationOptions.llmEdit (docs/lsp.md, "Settings")
}

local clients = {} -- root directory -> client id
local statuses = {} -- client id -> context id -> files ({path, status})
local captured = {} -- client id -> context id -> true: contexts known to exist
local diff_messages = 0 -- conflict diffs on their way as window/showMessage
local last_payload = nil -- {payload, format, context}: the last one applied or previewed
local missing_notified = false
local has_011 = vim.fn.has("nvim-0.11") == 1

local function notify(message, level)
  vim.notify("llm-edit: " .. message, level or vim.log.levels.INFO)
end

-- Client methods are called with `:` from 0.11 on (`.` is deprecated there).
local function client_request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

-- vim.diff, called vim.text.diff in newer versions.
local diff = (vim.text and vim.text.diff) or vim.diff

--- The byte index of UTF-16/UTF-32 index `col` in `line` (0.11 changed
--- vim.str_byteindex's arguments).
local function byteindex(line, col, encoding)
  if has_011 then
    return vim.str_byteindex(line, encoding, col, false)
  end
  return vim.str_byteindex(line, col, encoding == "utf-16")
end

--- The server command, or nil and what to tell the user.
local function server_cmd()
  if config.cmd then
    return config.cmd
  end
  local server = config.server
  if server and server ~= "" then
    server = vim.fn.expand(server)
    if vim.fn.executable(server) ~= 1 then
      return nil, "the server " .. server .. " (setup option `server`) is not executable; " .. INSTALL_HINT
    end
    return { server, "lsp" }
  end
  local found = vim.fn.exepath(NAME)
  if found == "" then
    return nil, NAME .. " was not found on PATH; " .. INSTALL_HINT
  end
  return { found, "lsp" }
end

--- The root of a file: the nearest folder upwards holding a root marker
--- (`.git` by default), else the working directory.
function M.root_dir(fname)
  if fname and fname ~= "" then
    local dir = vim.fn.fnamemodify(fname, ":p:h")
    while dir and dir ~= "" do
      for _, marker in ipairs(config.root_markers) do
        if exists(dir .. "/" .. marker) then
          return dir
        end
      end
      local parent = vim.fn.fnamemodify(dir, ":h")
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  return vim.fn.getcwd()
end

local function redraw_status()
  pcall(vim.cmd, "redrawstatus!")
  if vim.fn.exists("#User#LlmEditStatus") == 1 then
    pcall(vim.cmd, "doautocmd <nomodeline> User LlmEditStatus")
  end
end

local levels = {
  [1] = vim.log.levels.ERROR,
  [2] = vim.log.levels.WARN,
  [3] = vim.log.levels.INFO,
  [4] = vim.log.levels.DEBUG,
}

local handlers = {
  -- The outcome of llm-edit.apply ("Applied 3 edits to 2 files", "2 of 5
  -- edits failed: …", a refusal) arrives as window/showMessage.
  ["window/showMessage"] = function(_, result)
    local message = result.message or ""
    if diff_messages > 0 and result.type == 3 and message:find("^%-%-%- ") then
      -- :LlmEditResolve diff shows it in a buffer.
      diff_messages = diff_messages - 1
      return vim.NIL
    end
    message = message:gsub("^llm%-edit: ", "")
    notify(message, levels[result.type] or vim.log.levels.INFO)
    return vim.NIL
  end,
  -- Like Neovim's own handler, without 0.7's "Workspace edit …" print.
  ["workspace/applyEdit"] = function(_, params, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if not params or not client then
      return { applied = false, failureReason = "no client" }
    end
    local ok, err = pcall(vim.lsp.util.apply_workspace_edit, params.edit, client.offset_encoding)
    return { applied = ok, failureReason = (not ok) and tostring(err) or nil }
  end,
  ["llm-edit/status"] = function(_, result, ctx)
    if type(result) ~= "table" or not result.id then
      return
    end
    statuses[ctx.client_id] = statuses[ctx.client_id] or {}
    statuses[ctx.client_id][result.id] = result.files or {}
    captured[ctx.client_id] = captured[ctx.client_id] or {}
    captured[ctx.client_id][result.id] = true
    redraw_status()
  end,
}

local function client_config(root, cmd)
  -- Neovim 0.8+ would open a conflict's diff with window/showDocument (a
  -- temporary file, in the current window); without it the server sends
  -- the diff back, and :LlmEditResolve diff shows it in a scratch split on
  -- every version.
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.window = capabilities.window or {}
  capabilities.window.showDocument = { support = false }
  return {
    name = NAME,
    cmd = cmd,
    root_dir = root,
    capabilities = capabilities,
    -- An empty Lua table would be sent as a JSON array.
    init_options = { llmEdit = next(config.settings or {}) and config.settings or vim.empty_dict() },
    handlers = handlers,
    on_exit = function(_, _, client_id)
      statuses[client_id] = nil
      captured[client_id] = nil
      for r, id in pairs(clients) do
        if id == client_id then
          clients[r] = nil
        end
      end
      vim.schedule(redraw_status)
    end,
  }
end

--- The client for `root`, started when there is none (nil when the server
--- cannot be found: the first time, and always when `loud`, the user is
--- told how to install it). With `bufnr`, that buffer is attached to it.
local function ensure_client(root, bufnr, loud)
  local id = clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client and client_stopped(client) then
    client = nil
  end
  if not client then
    local cmd, why = server_cmd()
    if not cmd then
      if loud or not missing_notified then
        missing_notified = true
        notify(why, vim.log.levels.ERROR)
      end
      return nil
    end
    local cfg = client_config(root, cmd)
    if vim.lsp.start and bufnr then
      id = vim.lsp.start(cfg, { bufnr = bufnr })
    elseif has_011 then
      -- No buffer to attach (start_client is deprecated from 0.11 on).
      id = vim.lsp.start(cfg, { attach = false })
    else
      -- Neovim 0.7 (no vim.lsp.start), or no buffer to attach.
      id = vim.lsp.start_client(cfg)
    end
    if not id then
      notify("could not start " .. table.concat(cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
    client = vim.lsp.get_client_by_id(id)
  end
  if bufnr and not vim.lsp.buf_is_attached(bufnr, client.id) then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
  return client
end

local function wants(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" or vim.api.nvim_buf_get_name(bufnr) == "" then
    return false
  end
  if not config.filetypes then
    return true
  end
  return vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype)
end

--- Attaches a file buffer to the server of its root.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not wants(bufnr) then
    return nil
  end
  return ensure_client(M.root_dir(vim.api.nvim_buf_get_name(bufnr)), bufnr)
end

--- The client for the current buffer (started and attached when needed),
--- waiting for it to be initialized.
function M.client()
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  if wants(bufnr) then
    client = ensure_client(M.root_dir(vim.api.nvim_buf_get_name(bufnr)), bufnr, true)
  else
    client = ensure_client(M.root_dir(nil), nil, true)
  end
  if client and not client.initialized then
    vim.wait(10000, function()
      return client.initialized or client_stopped(client)
    end, 10)
    if not client.initialized then
      notify("the server did not start (see :LspLog)", vim.log.levels.ERROR)
      return nil
    end
  end
  return client
end

--- Runs a server command asynchronously; `on_result(result)` on success,
--- a notification with the server's message on error.
function M.execute(command, argument, on_result, client)
  client = client or M.client()
  if not client then
    return false
  end
  if next(argument) == nil then
    argument = vim.empty_dict() -- not a JSON array
  end
  local params = { command = command, arguments = { argument } }
  client_request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result, client)
    end
  end, nil) -- no buffer: every buffer's pending didChange is sent first
  return true
end

local function with_options(argument, opts)
  for _, key in ipairs({ "format", "context", "options", "edits" }) do
    if opts[key] ~= nil then
      argument[key] = opts[key]
    end
  end
  return argument
end

-- Payload sources ----------------------------------------------------------

local function buffer_payload(bufnr, first, last)
  local lines = vim.api.nvim_buf_get_lines(bufnr, first, last, false)
  return table.concat(lines, "\n") .. "\n"
end

--- The payload of a command: {payload} or nil (after saying why not).
--- `cmd` is the user command's table (range, args); `allow_last` lets a
--- command without range or register reuse the last payload.
local function payload_of(cmd, allow_last)
  local reg = vim.trim(cmd.args or "")
  local text, source
  if cmd.range and cmd.range > 0 then
    text = buffer_payload(0, cmd.line1 - 1, cmd.line2)
    source = string.format("lines %d-%d", cmd.line1, cmd.line2)
  elseif reg ~= "" then
    if #reg ~= 1 then
      notify("expected one register name, got `" .. reg .. "`", vim.log.levels.ERROR)
      return nil
    end
    if (reg == "+" or reg == "*") and vim.fn.has("clipboard") ~= 1 then
      notify("no clipboard provider for register " .. reg .. " (see :checkhealth provider)", vim.log.levels.ERROR)
      return nil
    end
    text = vim.fn.getreg(reg)
    source = "register " .. reg
  elseif allow_last and last_payload then
    return last_payload.payload
  else
    text = buffer_payload(0, 0, -1)
    source = "the buffer"
  end
  if vim.trim(text) == "" then
    notify("nothing to do: " .. source .. " is empty", vim.log.levels.WARN)
    return nil
  end
  return text
end

-- Apply --------------------------------------------------------------------

--- Applies a payload: opts = {payload = text} or {uri = …}, and optionally
--- format, context, options, edits. The outcome is notified by the server
--- (window/showMessage); `on_done(result)` gets the command's result.
function M.apply(opts, on_done, client)
  client = client or M.client()
  if not client then
    return false
  end
  if opts.payload then
    last_payload = opts
  end
  local argument = with_options({ payload = opts.payload, uri = opts.uri }, opts)
  local function apply()
    M.execute("llm-edit.apply", argument, function(result)
      if on_done then
        on_done(result)
      end
    end, client)
  end
  local id = opts.context or "default"
  if opts.payload and captured[client.id] and captured[client.id][id] then
    -- With a context, the files the payload edits count as LLM-edited for
    -- llm-edit/status (the `~M` of status()) until an apply succeeds.
    client_request(client, "workspace/executeCommand", {
      command = "llm-edit.status",
      arguments = { { id = id, payload = opts.payload } },
    }, apply, nil)
  else
    apply()
  end
  return true
end

--- A scratch buffer (filetype diff) in a new window at the bottom; `q`
--- closes it.
local function show_scratch(lines, name)
  vim.cmd("botright new")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = "nofile"
  vim.bo[bufnr].bufhidden = "wipe"
  vim.bo[bufnr].swapfile = false
  pcall(vim.api.nvim_buf_set_name, bufnr, name .. "/" .. bufnr)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].filetype = "diff"
  vim.keymap.set("n", "q", function()
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.api.nvim_buf_delete(bufnr, { force = true })
    end
  end, { buffer = bufnr, nowait = true, desc = "llm-edit: close" })
  return bufnr
end

-- Preview ------------------------------------------------------------------

--- The loaded buffer of a file, or nil (bufnr() would take the name as a
--- pattern, and vim.uri_to_bufnr adds a buffer).
local function loaded_buffer(fname)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_name(bufnr) == fname then
      return bufnr
    end
  end
  return nil
end

--- The text of a file: its loaded buffer (unsaved changes count), else disk.
local function uri_text(uri)
  local fname = vim.uri_to_fname(uri)
  local bufnr = loaded_buffer(fname)
  if bufnr then
    local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
    if vim.bo[bufnr].eol then
      text = text .. "\n"
    end
    return text
  end
  local f = io.open(fname, "rb")
  if not f then
    return ""
  end
  local text = f:read("*a")
  f:close()
  return text
end

--- The byte offset in `text` of an LSP position.
local function byte_offset(text, starts, position, encoding)
  local line = position.line + 1
  if line > #starts then
    return #text
  end
  local start = starts[line]
  local stop = (starts[line + 1] or (#text + 2)) - 1
  local content = text:sub(start, stop - 1):gsub("\r?\n$", "")
  local col = position.character
  if encoding ~= "utf-8" then
    local ok, b = pcall(byteindex, content, col, encoding)
    col = ok and b or #content
  end
  return start - 1 + math.min(col, #content)
end

--- `text` with LSP TextEdits applied.
function M._apply_text_edits(text, edits, encoding)
  local starts = { 1 }
  for pos in text:gmatch("\n()") do
    starts[#starts + 1] = pos
  end
  if starts[#starts] == #text + 1 and #text > 0 then
    starts[#starts] = nil
  end
  local spans = {}
  for i, e in ipairs(edits) do
    spans[#spans + 1] = {
      i = i,
      from = byte_offset(text, starts, e.range.start, encoding),
      to = byte_offset(text, starts, e.range["end"], encoding),
      text = e.newText,
    }
  end
  table.sort(spans, function(a, b)
    if a.from ~= b.from then
      return a.from > b.from
    end
    return a.i > b.i
  end)
  for _, s in ipairs(spans) do
    text = text:sub(1, s.from) .. s.text .. text:sub(s.to + 1)
  end
  return text
end

local function relative(root, uri)
  local fname = vim.uri_to_fname(uri)
  if root and fname:sub(1, #root + 1) == root .. "/" then
    return fname:sub(#root + 2)
  end
  return fname
end

--- The unified diff of a WorkspaceEdit (lines).
function M._edit_diff(edit, root, encoding)
  local lines = {}
  local function file_diff(uri, old, new)
    local path = relative(root, uri)
    local hunks = diff(old, new, { result_type = "unified", ctxlen = 3 })
    if hunks == "" then
      return
    end
    lines[#lines + 1] = "--- " .. (old == "" and "/dev/null" or "a/" .. path)
    lines[#lines + 1] = "+++ b/" .. path
    for l in hunks:gmatch("([^\n]*)\n") do
      lines[#lines + 1] = l
    end
  end
  local uris = {}
  for uri in pairs(edit.changes or {}) do
    uris[#uris + 1] = uri
  end
  table.sort(uris)
  for _, uri in ipairs(uris) do
    local old = uri_text(uri)
    file_diff(uri, old, M._apply_text_edits(old, edit.changes[uri], encoding))
  end
  local created = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      created[change.uri] = true
    elseif change.kind == "rename" then
      lines[#lines + 1] = "# rename " .. relative(root, change.oldUri) .. " -> " .. relative(root, change.newUri)
    elseif change.kind == "delete" then
      lines[#lines + 1] = "# delete " .. relative(root, change.uri)
    elseif change.textDocument then
      local uri = change.textDocument.uri
      local old = created[uri] and "" or uri_text(uri)
      file_diff(uri, old, M._apply_text_edits(old, change.edits, encoding))
    end
  end
  return lines
end

local function error_lines(result)
  local lines = {}
  for _, e in ipairs(result.errors or {}) do
    lines[#lines + 1] = e.message or vim.inspect(e)
  end
  return lines
end

--- Shows what a payload would change in a scratch buffer (filetype diff):
--- `a` applies it, `q` closes it. `on_shown(bufnr, result)` when shown.
function M.preview(opts, on_shown)
  if opts.payload then
    last_payload = opts
  end
  local argument = with_options({ payload = opts.payload, uri = opts.uri }, opts)
  return M.execute("llm-edit.preview", argument, function(result, client)
    local errors = error_lines(result)
    if result.edit == nil or result.edit == vim.NIL then
      local message = #errors > 0 and table.concat(errors, "\n") or "nothing to change"
      notify("preview: " .. message, #errors > 0 and vim.log.levels.ERROR or vim.log.levels.INFO)
      if on_shown then
        on_shown(nil, result)
      end
      return
    end
    local root = client.config.root_dir
    local lines = {
      string.format("# llm-edit preview: %d file(s). a: apply, q: close", #(result.files or {})),
    }
    for _, f in ipairs(result.files or {}) do
      lines[#lines + 1] = string.format("# %-2s %s%s", f.status or "", f.from and (f.from .. " -> ") or "", f.path)
    end
    for _, e in ipairs(errors) do
      lines[#lines + 1] = "# error: " .. e
    end
    for _, w in ipairs(result.warnings or {}) do
      lines[#lines + 1] = string.format("# warning: %s would have a parse error at line %d", w.path, w.line)
    end
    vim.list_extend(lines, M._edit_diff(result.edit, root, client.offset_encoding))

    local bufnr = show_scratch(lines, "llm-edit://preview")
    local function close()
      if vim.api.nvim_buf_is_valid(bufnr) then
        vim.api.nvim_buf_delete(bufnr, { force = true })
      end
    end
    vim.keymap.set("n", "a", function()
      close()
      M.apply(opts, nil, client)
    end, { buffer = bufnr, nowait = true, desc = "llm-edit: apply the previewed payload" })
    if on_shown then
      on_shown(bufnr, result)
    end
  end)
end

-- Context snapshots ----------------------------------------------------------

--- The command argument naming context `id` ({} for the default one).
local function id_argument(id)
  if id and id ~= "" then
    return { id = id }
  end
  return {}
end

--- Records the open files as the context the LLM is shown (id: "default").
function M.capture(id, on_done)
  local argument = id_argument(id)
  return M.execute("llm-edit.captureContext", argument, function(result, client)
    captured[client.id] = captured[client.id] or {}
    captured[client.id][result.id] = true
    notify(string.format("captured context '%s': %d file(s) %s", result.id, #result.files,
      table.concat(result.files, ", ")))
    if on_done then
      on_done(result)
    end
  end)
end

--- Deletes a context snapshot (id: "default").
function M.release(id, on_done)
  local argument = id_argument(id)
  return M.execute("llm-edit.releaseContext", argument, function(result, client)
    if statuses[client.id] then
      statuses[client.id][result.id] = nil
    end
    if captured[client.id] then
      captured[client.id][result.id] = nil
    end
    redraw_status()
    notify(string.format("released context '%s'", result.id))
    if on_done then
      on_done(result)
    end
  end)
end

-- Conflicts -------------------------------------------------------------------

local resolved = {
  theirs = "took the LLM's version of the region",
  both = "inserted both versions with conflict markers",
  ours = "kept your version of the region",
}

--- Resolves the `~M` conflict region under the cursor (a `conflict`
--- diagnostic): choice "theirs" (the LLM's lines), "ours" (yours),
--- "both" (conflict markers) or "diff" (show both sides). It runs the
--- server's code action for that region.
function M.resolve(choice, on_done)
  if not resolved[choice] and choice ~= "diff" then
    notify("resolve what? theirs, ours, both or diff (got `" .. tostring(choice) .. "`)", vim.log.levels.ERROR)
    return false
  end
  local client = M.client()
  if not client then
    return false
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
    context = { diagnostics = {} },
  }
  client_request(client, "textDocument/codeAction", params, function(err, actions)
    if err then
      notify("textDocument/codeAction: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local command
    for _, action in ipairs(actions or {}) do
      local c = action.command
      local arg = c and c.arguments and c.arguments[1]
      if c and c.command == "llm-edit.resolveConflict" and arg and arg.choice == choice then
        command = c
        break
      end
    end
    if not command then
      notify("no LLM edit conflict on line " .. (line + 1) .. " (conflicts are `conflict` diagnostics)",
        vim.log.levels.WARN)
      return
    end
    if choice == "diff" then
      diff_messages = diff_messages + 1
    end
    M.execute(command.command, command.arguments[1], function(result)
      if choice == "diff" then
        if result.shown ~= "message" then
          diff_messages = math.max(diff_messages - 1, 0)
        end
        if result.diff and result.shown ~= "document" then
          local lines = vim.split(result.diff, "\n", { plain = true })
          if lines[#lines] == "" then
            lines[#lines] = nil
          end
          show_scratch(lines, "llm-edit://conflict")
        end
      elseif result.applied == false then
        notify("the conflict was not resolved: " .. tostring(result.failureReason or "the edit was refused"),
          vim.log.levels.ERROR)
      else
        notify(resolved[choice])
      end
      if on_done then
        on_done(result)
      end
    end, client)
  end, bufnr)
  return true
end

-- Retry prompt ---------------------------------------------------------------

--- Puts the retry prompt of a payload into the unnamed register and, with
--- a clipboard provider, the + register. `on_done(prompt)` (nil when
--- every edit applies).
function M.retry_prompt(opts, on_done)
  local argument = with_options({ payload = opts.payload, uri = opts.uri }, opts)
  return M.execute("llm-edit.retryPrompt", argument, function(result)
    local prompt = result.prompt
    if prompt == nil or prompt == vim.NIL then
      notify("every edit applies; nothing to retry")
      if on_done then
        on_done(nil)
      end
      return
    end
    vim.fn.setreg('"', prompt)
    local where = "the unnamed register"
    if vim.fn.has("clipboard") == 1 and pcall(vim.fn.setreg, "+", prompt) then
      where = "the unnamed register and the + register (clipboard)"
    end
    local _, count = prompt:gsub("\n", "")
    notify(string.format("retry prompt (%d lines) copied to %s", count, where))
    if on_done then
      on_done(prompt)
    end
  end)
end

-- Status -----------------------------------------------------------------------

--- The files of the last llm-edit/status notifications: {path, status}
--- (every context, every server; a path once).
function M.status_files()
  local seen, files = {}, {}
  for _, contexts in pairs(statuses) do
    for _, list in pairs(contexts) do
      for _, f in ipairs(list) do
        if not seen[f.path] or f.status == "~M" then
          if not seen[f.path] then
            files[#files + 1] = f
          end
          seen[f.path] = f
        end
      end
    end
  end
  for i, f in ipairs(files) do
    files[i] = seen[f.path]
  end
  return files
end

--- For the statusline: "llm-edit: 2 ~M" when 2 files are `~M` (changed by
--- you since the capture and edited by the LLM), else "".
function M.status()
  local n = 0
  for _, f in ipairs(M.status_files()) do
    if f.status == "~M" then
      n = n + 1
    end
  end
  if n == 0 then
    return ""
  end
  return string.format("llm-edit: %d ~M", n)
end

-- Setup ------------------------------------------------------------------------

local function define_commands()
  local command = vim.api.nvim_create_user_command
  command("LlmEditApply", function(cmd)
    local payload = payload_of(cmd)
    if payload then
      M.apply({ payload = payload })
    end
  end, { nargs = "?", range = true, desc = "llm-edit: apply the buffer, the range or a register" })
  command("LlmEditClipboard", function(cmd)
    cmd.args = "+"
    cmd.range = 0
    local payload = payload_of(cmd)
    if payload then
      M.apply({ payload = payload })
    end
  end, { nargs = 0, desc = "llm-edit: apply the clipboard (register +)" })
  command("LlmEditPreview", function(cmd)
    local payload = payload_of(cmd)
    if payload then
      M.preview({ payload = payload })
    end
  end, { nargs = "?", range = true, desc = "llm-edit: preview the buffer, the range or a register" })
  command("LlmEditRetryPrompt", function(cmd)
    local payload = payload_of(cmd, true)
    if payload then
      M.retry_prompt({ payload = payload })
    end
  end, { nargs = "?", range = true, desc = "llm-edit: copy the retry prompt of the last payload" })
  command("LlmEditResolve", function(cmd)
    M.resolve(cmd.args)
  end, {
    nargs = 1,
    complete = function()
      return { "theirs", "ours", "both", "diff" }
    end,
    desc = "llm-edit: resolve the conflict under the cursor",
  })
  command("LlmEditCapture", function(cmd)
    M.capture(cmd.args)
  end, { nargs = "?", desc = "llm-edit: snapshot the open files as the LLM's context" })
  command("LlmEditRelease", function(cmd)
    M.release(cmd.args)
  end, { nargs = "?", desc = "llm-edit: delete the context snapshot" })
end

--- setup{server?, cmd?, filetypes?, root_markers?, settings?}
function M.setup(opts)
  config = vim.tbl_deep_extend("force", config, opts or {})
  define_commands()
  local group = vim.api.nvim_create_augroup("llm_edit", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "FileType" }, {
    group = group,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.attach(bufnr)
    end
  end
end

return M
