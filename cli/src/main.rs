//! The `rqc` binary: the command line, the REPL and the language server, front ends over the `rqc` library.

mod abort;
mod commands;
mod lsp;
mod repl;
mod rowfile;
mod schema_source;

/// mimalloc, which notes an allocation that fails (see `abort`).
#[global_allocator]
static ALLOCATOR: abort::RememberingAllocator = abort::RememberingAllocator;

fn main() -> std::process::ExitCode {
    // The REPL and the language server analyse on this thread too.
    rqc_compiler::stack::with_deep_stack(commands::main)
}
