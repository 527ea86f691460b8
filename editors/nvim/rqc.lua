-- Neovim setup for RQL (0.7 and later): put it in your init.lua, or pass it
-- with `nvim -u`. It runs `rqc lsp`: the `rqc` binary on PATH (`cargo
-- install --path cli` from a checkout). One server serves every `.rq` file
-- of a workspace: the nearest directory above the file that holds `.git`,
-- or else the file's own directory.

-- Neovim 0.7 maps `.rq` to sparql and reads `vim.filetype.add` only with
-- `do_filetype_lua` set; the autocommand covers both 0.7 and later
-- versions (`setf` in the built-in detection then leaves `rql` alone).
vim.g.do_filetype_lua = 1
vim.filetype.add({ extension = { rq = "rql" } })
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
  pattern = "*.rq",
  callback = function()
    vim.bo.filetype = "rql"
  end,
})

local clients = {} -- workspace root -> client id

local function root_of(path)
  local git = vim.fn.finddir(".git", vim.fn.fnamemodify(path, ":p:h") .. ";")
  if git ~= "" then
    return vim.fn.fnamemodify(git, ":p:h:h")
  end
  return vim.fn.fnamemodify(path, ":p:h")
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "rql",
  callback = function(args)
    local root = root_of(vim.api.nvim_buf_get_name(args.buf))
    local id = clients[root]
    if not (id and vim.lsp.get_client_by_id(id)) then
      id = vim.lsp.start_client({
        name = "rqc",
        cmd = { "rqc", "lsp" },
        root_dir = root,
      })
      clients[root] = id
    end
    vim.lsp.buf_attach_client(args.buf, id)
  end,
})
