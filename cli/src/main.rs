//! The `rqc` binary: the command line, the REPL and the language server, front ends over the `rqc` library.

mod abort;
mod commands;
mod lsp;
mod repl;
mod rowfile;
mod schema_source;

/// Checking allocates many small trees: mimalloc serves them faster than
/// the system's allocator (see `compiler/benches/check_speed.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // The REPL and the language server analyse on this thread too.
    rqc_compiler::stack::with_deep_stack(commands::main)
}
