//! A storage engine that stops the process on a damaged page (LMDB's assertions call `abort`; a wild pointer is SIGSEGV; a truncated map is SIGBUS) still ends with a coded error and status 1.
//!
//! LMDB checks its pages with C assertions: on a damaged file it prints
//! the failed assertion and calls `abort()`, which no Rust code can catch.
//! The handler installed here runs instead of the default one: it says
//! what most likely happened, with the code and help of damage (E0591),
//! and exits with status 1, as every other error of a run does. It only
//! writes a constant message and exits, as a signal handler must.
//!
//! Running out of memory also ends in `abort()` (Rust's allocation-failure
//! handler). The process's allocator, [`RememberingAllocator`], notes a
//! failed allocation first, so that the handler reports that instead
//! (E0602): the database is not damaged, and sending the user to `verify`
//! would mislead.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, Ordering};

/// In the header style of every diagnostic, uncoloured: a signal handler
/// writes constant bytes only.
const MESSAGE: &[u8] = b"[E0591] Error: the storage engine stopped on an inconsistent page: the database is most likely damaged\n  Help: nothing was answered; `rqc verify --db DIR` lists what is damaged and `rqc dump --db DIR --out DIR2` copies out every readable row\n";

const OUT_OF_MEMORY_MESSAGE: &[u8] = b"[E0602] Error: rqc ran out of memory: nothing was committed, and the database is unchanged\n  Help: a value the run builds is too large for this machine (a list, record or string that doubles at each `let`); build a smaller one, or run where there is more memory\n";

/// Set once an allocation has failed; read by the signal handler.
static OUT_OF_MEMORY: AtomicBool = AtomicBool::new(false);

/// mimalloc (faster than the system's allocator for the checker's many
/// small trees, see `compiler/benches/check_speed.rs`), noting a failed
/// allocation for [`on_abort`].
pub struct RememberingAllocator;

impl RememberingAllocator {
    fn noted(pointer: *mut u8) -> *mut u8 {
        if pointer.is_null() {
            OUT_OF_MEMORY.store(true, Ordering::Relaxed);
        }
        pointer
    }
}

// SAFETY: every call is mimalloc's, with the caller's arguments unchanged.
unsafe impl GlobalAlloc for RememberingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires it.
        Self::noted(unsafe { mimalloc::MiMalloc.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        Self::noted(unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` came from this allocator (mimalloc) with `layout`.
        unsafe { mimalloc::MiMalloc.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, and `size` is the caller's, non-zero.
        Self::noted(unsafe { mimalloc::MiMalloc.realloc(pointer, layout, size) })
    }
}

extern "C" fn on_abort(_signal: libc::c_int) {
    let message = if OUT_OF_MEMORY.load(Ordering::Relaxed) {
        OUT_OF_MEMORY_MESSAGE
    } else {
        MESSAGE
    };
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffers are
    // static.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
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
