//! The `rqc` binary: the command line, the REPL and the language server, front ends over the `rqc` library.

mod abort;
mod commands;
mod json_text;
mod lsp;
mod repl;
mod rowfile;
mod schema_source;

/// mimalloc, which notes an allocation that fails (see `abort`).
#[global_allocator]
static ALLOCATOR: abort::RememberingAllocator = abort::RememberingAllocator;

/// Output piped into a reader that stops early (`rqc run … | head -1`)
/// ends the process as it ends `cat`, by SIGPIPE, not with a panic's
/// message and status 101. SIGPIPE stays ignored otherwise (as Rust sets
/// it): a socket closed by an etcd server must be an error the client
/// reports, not the end of the process.
fn end_quietly_on_a_closed_output() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        // `print!` panics with "failed printing to stdout: Broken pipe".
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            // SAFETY: restores the default disposition and raises the
            // signal at this process, which ends it.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                libc::raise(libc::SIGPIPE);
            }
        }
        previous(info);
    }));
}

fn main() -> std::process::ExitCode {
    end_quietly_on_a_closed_output();
    // The REPL and the language server analyse on this thread too.
    match rqc_compiler::stack::try_with_deep_stack(commands::main) {
        Ok(status) => status,
        Err(refused) => {
            let help = rqc_compiler::stack::NoDeepStack::help();
            commands::report::print_problem(
                rqc_compiler::stack::NoDeepStack::CODE,
                &refused.message(),
                &[&help],
            );
            std::process::ExitCode::from(commands::Status::Usage as u8)
        }
    }
}
