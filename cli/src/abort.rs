//! A storage engine that stops the process on a damaged page (LMDB's assertions call `abort`; a wild pointer is SIGSEGV; a truncated map is SIGBUS) still ends with a coded error and status 1.
//!
//! LMDB checks its pages with C assertions: on a damaged file it prints
//! the failed assertion and calls `abort()`, which no Rust code can catch.
//! The handler installed here runs instead of the default one: it says
//! what most likely happened, with the code and help of damage (E0591),
//! and exits with status 1, as every other error of a run does. It only
//! writes a constant message and exits, as a signal handler must.

const MESSAGE: &[u8] = b"error[E0591]: the storage engine stopped on an inconsistent page: the database is most likely damaged\n  help: nothing was answered; `rqc verify --db DIR` lists what is damaged and `rqc dump --db DIR --out DIR2` copies out every readable row\n";

extern "C" fn on_abort(_signal: libc::c_int) {
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is static.
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::_exit(1);
    }
}

/// Installs the handler for `SIGABRT`, `SIGSEGV` and `SIGBUS`, once a
/// command opens a database directory: the storage engine's C code raises
/// them on a damaged page read through LMDB's map. Before that (and in a
/// command that opens none, such as `rqc check`) a signal has another
/// cause, such as memory running out, and keeps its default report.
pub fn report_aborts_as_damage() {
    for signal in [libc::SIGABRT, libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: the handler only calls async-signal-safe functions.
        unsafe {
            libc::signal(signal, on_abort as *const () as libc::sighandler_t);
        }
    }
}
