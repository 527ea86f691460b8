//! Waking the live watcher when another process writes the database's files (inotify, on Linux), so its commits reach subscribers without waiting for the watcher's next look.
//!
//! The look every [`super::POLL`] stays the guarantee; this only shortens
//! the wait. Where inotify cannot be set up (another OS, no watches left),
//! the watcher just looks on its own schedule.

use super::hub::Wake;
use std::path::Path;
use std::sync::Weak;
use std::thread::JoinHandle;

/// How often the waker checks that its database is still open.
#[cfg(target_os = "linux")]
const CHECK_MS: i32 = 100;

/// A thread that raises `wake` whenever a file in `dir` is written, until
/// the watcher is stopped; detached (it holds only the flag, never the
/// store, so closing the database neither waits for it nor is held open).
#[cfg(target_os = "linux")]
pub(crate) fn spawn(dir: &Path, wake: Weak<Wake>) -> Option<JoinHandle<()>> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: plain system calls on a descriptor this function owns.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `path` is a valid C string for the call's duration.
    if unsafe { libc::inotify_add_watch(fd, path.as_ptr(), libc::IN_MODIFY) } < 0 {
        // SAFETY: `fd` is open and ours.
        unsafe { libc::close(fd) };
        return None;
    }
    Some(std::thread::spawn(move || {
        let mut events = [0u8; 4096];
        loop {
            let mut ready = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let woke = unsafe { libc::poll(&mut ready, 1, CHECK_MS) };
            let Some(wake) = wake.upgrade().filter(|wake| !wake.stopped()) else {
                break;
            };
            if woke > 0 {
                // SAFETY: reads into a buffer of the given length.
                while unsafe { libc::read(fd, events.as_mut_ptr().cast(), events.len()) } > 0 {}
                wake.notify();
            }
        }
        // SAFETY: `fd` is open and ours.
        unsafe { libc::close(fd) };
    }))
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn spawn(_dir: &Path, _wake: Weak<Wake>) -> Option<JoinHandle<()>> {
    None
}
