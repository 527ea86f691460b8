//! Checking over several threads: the same answer as on one, and a malformed thread count refused.

use super::{stderr, stdout, write};
use std::process::Command;

/// `rqc check` over two threads answers exactly as on one (the definitions
/// are many enough to be split between threads, and some are rejected or
/// misspelt, so verdicts and diagnostics in order are compared); a
/// malformed `RQC_THREADS` is refused before anything is checked.
#[test]
fn check_over_threads_answers_as_on_one_and_refuses_a_bad_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "module many\ntable T {\n  id: Int key\n  owner: Int\n  index by_owner (owner)\n  bound owner <= 100\n}\n",
    );
    for i in 0..400 {
        text.push_str(&match i % 4 {
            0 => format!("fn h{i}(xs: [T], n: Int) = xs |> take(n)\n"),
            1 => format!("query q{i}(o: Int) = T.by_owner[o] |> h{}(10)\n", i - 1),
            2 => format!("query bad{i}(o: Int) = T |> filter(t => t.owner == o)\n"),
            _ => format!("query typo{i}(id: Int) = T[id].ownr\n"),
        });
    }
    let file = write(dir.path(), "many.rq", &text);
    let run = |threads: &str| {
        Command::new(env!("CARGO_BIN_EXE_rqc"))
            .args(["check", &file])
            .env("NO_COLOR", "1")
            .env("RQC_THREADS", threads)
            .output()
            .expect("rqc runs")
    };
    let one = run("1");
    let two = run("2");
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert_eq!(stdout(&one), stdout(&two));
    assert_eq!(stderr(&one), stderr(&two));
    assert_eq!(stdout(&one).lines().count(), 300, "{}", stdout(&one));
    assert_eq!(stdout(&one).matches("rejected").count(), 200);
    assert_eq!(
        stderr(&one).matches("] Error:").count(),
        200,
        "{}",
        stderr(&one)
    );
    for bad in ["0", "two", "", "65"] {
        let refused = run(bad);
        assert_eq!(refused.status.code(), Some(2), "RQC_THREADS={bad:?}");
        let err = stderr(&refused);
        assert!(err.starts_with("[E0601] Error"), "{err}");
        assert!(stdout(&refused).is_empty());
    }
}
