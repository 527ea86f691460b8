//! Ctrl-C in the REPL stops the command running, as in psql and sqlite3, and the session goes on; with nothing running it ends the session, as before.
//!
//! On a terminal, the line editor reads Ctrl-C as a key (it clears the
//! line being typed); a SIGINT arrives only while a command runs, or while
//! piped input is read.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a command is running (set and cleared by [`Running`]).
static RUNNING: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_signal: libc::c_int) {
    if RUNNING.load(Ordering::Relaxed) {
        rqc_runtime::interrupt::request();
    } else {
        // SAFETY: _exit(2) is async-signal-safe. 130 is the shells' status
        // for a process ended by SIGINT.
        unsafe { libc::_exit(130) };
    }
}

/// Installs the handler, once, when the session starts.
pub fn install() {
    // SAFETY: the handler only touches atomics and calls _exit.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as *const () as libc::sighandler_t,
        );
    }
}

/// While alive, a Ctrl-C stops the running command instead of the session.
pub struct Running;

impl Running {
    pub fn start() -> Running {
        rqc_runtime::interrupt::clear();
        RUNNING.store(true, Ordering::Relaxed);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.store(false, Ordering::Relaxed);
        rqc_runtime::interrupt::clear();
    }
}
