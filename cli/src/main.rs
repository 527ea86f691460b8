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
    // Output piped into a reader that stops early (`rqc run … | head -1`)
    // ends the process quietly, as it ends `cat`, rather than panicking on
    // the failed write (Rust ignores SIGPIPE by default).
    // SAFETY: before any thread starts; restores the default disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // The REPL and the language server analyse on this thread too.
    rqc_compiler::stack::with_deep_stack(commands::main)
}
