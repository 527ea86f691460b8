//! A deep stack for the recursive passes over programs and plans: they run on a thread of their own with [`STACK_SIZE`] bytes, whatever thread calls them.
//!
//! The compiler's passes after parsing recurse over the tree, which the
//! parser limits to `syntax::depth::MAX_DEPTH` levels; the runtime's over
//! plans, which [`crate::MAX_PLAN_DEPTH`] limits. At that depth a debug
//! build needs far more than a spawned thread's default 2 MiB, so such
//! work runs on a thread whose stack is reserved large (address space, not
//! memory: only the pages a deep program touches are ever committed).
//!
//! Work asked for on such a thread already (the `rqc` binary runs all its
//! commands on one) runs there directly: a thread started and ended per
//! compilation costs its start, the allocator's collection of the thread's
//! heap at its end, and the frees of every result from another thread.

use std::cell::Cell;

/// The stack reserved for compilation and for running deep plans.
pub const STACK_SIZE: usize = 256 << 20;

thread_local! {
    /// This thread was started by [`with_deep_stack`].
    static ON_DEEP_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` on a thread with [`STACK_SIZE`] bytes of stack and returns
/// its result; a panic in it is resumed in the caller. On a thread this
/// function started, `work` runs in place (the stack is already deep).
pub fn with_deep_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if ON_DEEP_STACK.with(Cell::get) {
        return work();
    }
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("rqc-compile".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, || {
                ON_DEEP_STACK.with(|deep| deep.set(true));
                work()
            })
            .expect("the system gives a thread its stack");
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
