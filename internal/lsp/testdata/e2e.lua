-- Neovim end-to-end test of `podlint lsp` (run by TestNeovim): only APIs
-- that Neovim 0.7 has. It opens PODLINT_FILE, waits for podlint's
-- diagnostics (PODLINT_CODE's among them), hovers the field that finding
-- points at, applies a code action through
-- Neovim's own edit code and waits for the diagnostics of the edited
-- buffer; it writes what it saw as JSON to PODLINT_OUT.
local out = {}
local function finish(err)
  out.error = err
  local f = io.open(os.getenv('PODLINT_OUT'), 'w')
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  local file = os.getenv('PODLINT_FILE')
  local action_title = os.getenv('PODLINT_ACTION')
  local code = os.getenv('PODLINT_CODE')
  local client_id = vim.lsp.start_client({
    name = 'podlint',
    cmd = { os.getenv('PODLINT_BIN'), 'lsp' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
  })
  assert(client_id, 'start_client failed')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.lsp.buf_attach_client(buf, client_id), 'buf_attach_client failed')

  local function codes()
    local seen = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do seen[d.code] = d end
    return seen
  end
  assert(vim.wait(60000, function() return codes()[code] ~= nil end, 20), 'no ' .. code .. ' diagnostic')
  local client = vim.lsp.get_client_by_id(client_id)
  out.encoding = client.offset_encoding
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col,
      severity = d.severity, message = d.message })
  end

  -- Hover on the finding's key: its line and the key's byte column.
  local d = codes()[code]
  local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1]
  local character = vim.str_utfindex(line, d.col + 2) -- inside the key, in UTF-16
  local pos = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = d.lnum, character = character } }
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', pos, 20000)
  assert(res and res[client_id] and res[client_id].result, 'no hover result')
  out.hover = res[client_id].result.contents.value

  -- The code actions of the finding's line; apply the one asked for.
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = 0 }, ['end'] = { line = d.lnum, character = 0 } },
    context = { diagnostics = {} } }
  res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 20000)
  assert(res and res[client_id] and res[client_id].result, 'no code actions')
  out.actions = {}
  local chosen
  for _, a in ipairs(res[client_id].result) do
    table.insert(out.actions, a.title)
    if a.title == action_title then chosen = a end
  end
  assert(chosen, 'no code action titled ' .. action_title)
  vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
  out.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

  -- Neovim sends the edit (didChange); the new diagnostics follow, without
  -- the finding the fix resolved.
  local gone = os.getenv('PODLINT_GONE')
  assert(vim.wait(60000, function() return codes()[gone] == nil end, 20), gone .. ' is still there after the edit')
  out.after = {}
  for code in pairs(codes()) do table.insert(out.after, code) end
  table.sort(out.after)
end)
finish(not ok and tostring(err) or nil)
