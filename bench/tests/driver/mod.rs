//! Running a bench driver from a test: its standard output once it exited 0, both its outputs shown when it did not.

use std::ffi::OsStr;
use std::process::Command;

/// Runs the driver `exe` with `args` and returns what it printed; a run
/// that fails the test shows its stdout and stderr.
pub fn run(exe: &str, args: impl IntoIterator<Item = impl AsRef<OsStr>>) -> String {
    let out = Command::new(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{exe} runs: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
