//! Colour on a terminal as the environment asks: on by default, off under a non-empty `NO_COLOR` (an empty one asks nothing) and with `TERM=dumb`.

use super::{repo, write};
use std::process::Command;

/// What `rqc check bad` writes on a pseudo-terminal (`script` gives it
/// one) with `environment` set.
fn on_a_terminal(bad: &str, environment: &str) -> String {
    let rqc = env!("CARGO_BIN_EXE_rqc");
    let output = Command::new("script")
        .args([
            "-qec",
            &format!("exec env {environment} {rqc} check {bad}"),
            "/dev/null",
        ])
        .current_dir(repo())
        .env("SHELL", "/bin/sh")
        .env_remove("NO_COLOR")
        .output()
        .expect("script runs (util-linux)");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn colour_on_a_terminal_follows_no_color_and_term() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.rq", "query q() = Nowhere\n");
    let coloured = |environment: &str| {
        let shown = on_a_terminal(&bad, environment);
        assert!(shown.contains("E0201"), "{environment}: {shown}");
        shown.contains("\u{1b}[")
    };
    assert!(coloured("TERM=xterm"), "a terminal shows colour");
    assert!(
        coloured("TERM=xterm NO_COLOR="),
        "an empty NO_COLOR asks nothing"
    );
    assert!(
        !coloured("TERM=xterm NO_COLOR=1"),
        "NO_COLOR=1 turns it off"
    );
    assert!(!coloured("TERM=dumb"), "a dumb terminal shows none");
}
