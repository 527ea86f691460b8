//! The `rqc` binary: the command line, the REPL and the language server, front ends over the `rqc` library.

mod commands;
mod lsp;
mod repl;
mod rowfile;

fn main() -> std::process::ExitCode {
    commands::main()
}
