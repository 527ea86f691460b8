-- Headless check of the documented setup (editors/nvim/rqc.lua, loaded as
-- the user's init with `-u`): open two `.rq` files of one workspace and let
-- filetype detection attach the client, then ask for what an editor shows.
-- Prints one line per finding and `OK` when every one arrived. Run by
-- scripts/nvim-check and cli/tests/editors.rs.
local dir = assert(os.getenv("RQC_CHECK_DIR"))
local function say(line)
  io.stdout:write(line .. "\n")
end
local function fail(message)
  say("FAIL " .. message)
  vim.cmd("qa!")
end
local function find(buf, pattern)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local at = line:find(pattern)
    if at then
      return { line = i - 1, character = at - 1 }
    end
  end
end
local function request(buf, method, params)
  local client = vim.lsp.buf_get_clients(buf)
  local _, first = next(client)
  local response = first.request_sync(method, params, 10000, buf)
  return response and response.result
end

vim.cmd("edit " .. dir .. "/feed.rq")
local feed = vim.api.nvim_get_current_buf()
say("filetype " .. vim.bo[feed].filetype)
if not vim.wait(15000, function() return #vim.diagnostic.get(feed) > 0 end, 50) then
  return fail("no diagnostic arrived")
end
local diagnostic = vim.diagnostic.get(feed)[1]
say("diagnostic " .. tostring(diagnostic.code) .. " at line " .. (diagnostic.lnum + 1))

vim.cmd("edit " .. dir .. "/social.rq")
local social = vim.api.nvim_get_current_buf()
if not vim.wait(5000, function() return next(vim.lsp.buf_get_clients(social)) ~= nil end, 50) then
  return fail("social.rq got no client")
end
say("clients " .. #vim.lsp.get_active_clients())
vim.cmd("buffer " .. feed)

local uri = vim.uri_from_bufnr(feed)
local hover = request(feed, "textDocument/hover", { textDocument = { uri = uri }, position = find(feed, "recent%(") })
say("hover " .. ((hover and hover.contents.value) or "none"):gsub("\n", " | "))

local at_post = find(feed, "Post%.by_author")
local definition = request(feed, "textDocument/definition", { textDocument = { uri = uri }, position = at_post })
local target = definition and (definition.uri or (definition[1] and definition[1].uri)) or "none"
say("definition " .. vim.fn.fnamemodify(vim.uri_to_fname(target ~= "none" and target or "file:///none"), ":t"))

local after_dot = { line = at_post.line, character = at_post.character + 5 }
local completion = request(feed, "textDocument/completion", { textDocument = { uri = uri }, position = after_dot })
local labels = {}
for _, item in ipairs((completion and (completion.items or completion)) or {}) do
  labels[#labels + 1] = item.label
end
table.sort(labels)
say("completion " .. table.concat(labels, " "))

local range = { start = { line = diagnostic.lnum, character = diagnostic.col }, ["end"] = { line = diagnostic.end_lnum, character = diagnostic.end_col } }
local lsp_diagnostics = vim.lsp.diagnostic.get_line_diagnostics(feed, diagnostic.lnum)
local actions = request(feed, "textDocument/codeAction", { textDocument = { uri = uri }, range = range, context = { diagnostics = lsp_diagnostics } })
for _, action in ipairs(actions or {}) do
  say("action " .. action.title)
end
say("OK")
vim.cmd("qa!")
