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

/// The system would not make the thread with the deep stack: its address
/// space is limited below [`STACK_SIZE`] (`ulimit -v`), or threads ran
/// out. Code E0609: the nesting the checker and the runtime promise needs
/// that stack, so nothing runs on a smaller one.
#[derive(Debug)]
pub struct NoDeepStack(pub std::io::Error);

impl NoDeepStack {
    /// The code of the refusal.
    pub const CODE: &'static str = "E0609";

    /// What happened, for a diagnostic's first line.
    pub fn message(&self) -> String {
        format!(
            "the system would not reserve the {} MiB stack rqc checks and runs programs on: {}",
            STACK_SIZE >> 20,
            self.0
        )
    }

    /// How to give it the room.
    pub fn help() -> String {
        let at_least = (STACK_SIZE >> 10) * 2;
        format!(
            "raise the address-space limit to at least {at_least} KiB (`ulimit -v {at_least}`), or remove it (`ulimit -v unlimited`)"
        )
    }
}

impl std::fmt::Display for NoDeepStack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", Self::CODE, self.message())
    }
}

/// Runs `work` on a thread with [`STACK_SIZE`] bytes of stack and returns
/// its result; a panic in it is resumed in the caller. On a thread this
/// function started, `work` runs in place (the stack is already deep).
/// When the system will not make the thread, [`NoDeepStack`] (E0609).
pub fn try_with_deep_stack<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, NoDeepStack> {
    if ON_DEEP_STACK.with(Cell::get) {
        return Ok(work());
    }
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("rqc-compile".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, || {
                ON_DEEP_STACK.with(|deep| deep.set(true));
                work()
            })
            .map_err(NoDeepStack)?;
        Ok(thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// [`try_with_deep_stack`] where the thread is taken for granted: a
/// process that cannot make it panics with E0609's message. (The `rqc`
/// binary makes the thread once, first, and refuses with the code; all
/// its work then runs on it in place.)
pub fn with_deep_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    try_with_deep_stack(work).unwrap_or_else(|refused| panic!("{refused}"))
}
