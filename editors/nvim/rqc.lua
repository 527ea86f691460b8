-- Neovim setup for RQL (0.7 and later): put in your init.lua, or `:luafile` it.
-- It runs `rqc lsp`: the `rqc` binary on PATH (`cargo install --path cli` from a checkout).
vim.filetype.add({ extension = { rq = "rql" } })
vim.api.nvim_create_autocmd("FileType", {
  pattern = "rql",
  callback = function(args)
    local id = vim.lsp.start_client({
      name = "rqc",
      cmd = { "rqc", "lsp" },
      root_dir = vim.fn.getcwd(),
    })
    vim.lsp.buf_attach_client(args.buf, id)
  end,
})
