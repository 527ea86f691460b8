-- Headless check: open a file with a rejected query in Neovim's built-in LSP
-- client attached to `rqc lsp`, wait for its diagnostic, hover a query's
-- name, and report. Run by scripts/nvim-check.
local file = assert(os.getenv("RQC_CHECK_FILE"))
local rqc = assert(os.getenv("RQC_BIN"))
vim.filetype.add({ extension = { rq = "rql" } })
vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
-- vim.lsp.start_client works from Neovim 0.7 (Debian's) on.
local client_id = vim.lsp.start_client({ name = "rqc", cmd = { rqc, "lsp" }, root_dir = vim.fn.fnamemodify(file, ":h") })
vim.lsp.buf_attach_client(buf, client_id)
local function fail(message)
  io.stdout:write("FAIL " .. message .. "\n")
  vim.cmd("qa!")
end
local ok = vim.wait(15000, function()
  return #vim.diagnostic.get(buf) > 0
end, 100)
if not ok then
  return fail("no diagnostic arrived")
end
local diagnostic = vim.diagnostic.get(buf)[1]
io.stdout:write("diagnostic " .. tostring(diagnostic.code) .. " at line " .. (diagnostic.lnum + 1) .. ": " .. diagnostic.message:gsub("\n.*", "") .. "\n")
-- Hover the name of the query on the line that says `recent`.
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local row, col
for i, line in ipairs(lines) do
  local at = line:find("recent%(")
  if at then row, col = i - 1, at - 1 end
end
if not row then
  return fail("no line with recent(")
end
local client = vim.lsp.get_client_by_id(client_id)
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = row, character = col } }
local response = client.request_sync("textDocument/hover", params, 10000, buf)
if not response or not response.result then
  return fail("no hover")
end
local hover = response.result.contents.value or ""
io.stdout:write("hover " .. hover:gsub("\n", " | ") .. "\n")
io.stdout:write("OK\n")
vim.cmd("qa!")
