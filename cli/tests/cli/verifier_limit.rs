//! A plan the checker accepts and the plan verifier refuses for its own work (E0641), through the binary: rejected by `rqc check` where it is written, and left out by `rqc run`, which installs and runs the program's other entry points.

use super::{rqc, stderr, stdout, write};

/// Functions that apply the function they are given once in each branch
/// of an `if`, nested 22 levels: the checker costs each level once (the
/// larger branch), the verifier evaluates both branches at every level,
/// 2^22 applications, past its 2,000,000 steps.
fn program() -> String {
    let mut deep = String::from("Post.by_author[u] |> take(5) |> count()");
    for level in 0..22 {
        deep = format!("either(c)(x{level} => {deep})");
    }
    format!(
        "table Post {{\n  id: Int key\n  author: Int\n  index by_author (author)\n}}\n\
         fn either(c: Bool) -> (Int -> Int) -> Int = g => if c {{ g(1) }} else {{ g(2) }}\n\
         query deep(u: Int, c: Bool) = {deep}\n\
         query shallow(u: Int, c: Bool) = either(c)(x => either(c)(y => Post.by_author[u] |> take(5) |> count()))\n\
         mutation post(id: Int, author: Int) = insert Post {{ id: id, author: author }}\n"
    )
}

#[test]
fn check_rejects_it_where_it_is_written_and_run_installs_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(dir.path(), "nest.rq", &program());
    let checked = rqc(&["check", &source]);
    assert_eq!(checked.status.code(), Some(1), "{}", stdout(&checked));
    let verdicts = stdout(&checked);
    let deep = verdicts
        .lines()
        .find(|line| line.starts_with("deep("))
        .unwrap_or_else(|| panic!("{verdicts}"));
    assert!(deep.contains("rejected (E0641"), "{deep}");
    assert!(
        verdicts
            .lines()
            .any(|line| line.starts_with("shallow(") && line.contains("rows ≤ 5")),
        "{verdicts}"
    );
    let report = stderr(&checked);
    assert!(report.contains("[E0641]"), "{report}");
    assert!(report.contains("nest.rq:7:1"), "{report}");
    assert!(report.contains("nest fewer levels"), "{report}");
    assert!(!report.contains("bug in rqc"), "{report}");

    // The installation rule: `deep` is a warning and is not installed;
    // the others are, and run.
    let db = dir.path().join("db").display().to_string();
    let posted = rqc(&[
        "run", "--db", &db, &source, "post", "--arg", "id=1", "--arg", "author=7",
    ]);
    assert_eq!(posted.status.code(), Some(0), "{}", stderr(&posted));
    assert!(
        stderr(&posted).contains("the program has 1 error elsewhere; `post` is accepted"),
        "{}",
        stderr(&posted)
    );
    let unplanned = rqc(&[
        "run", "--db", &db, "deep", "--arg", "u=7", "--arg", "c=true",
    ]);
    assert_ne!(unplanned.status.code(), Some(0), "{}", stderr(&unplanned));
    assert!(
        stderr(&unplanned).contains("[E0521] Error: the program has no query or mutation `deep`"),
        "{}",
        stderr(&unplanned)
    );
    assert!(
        stderr(&unplanned).contains("the entry points are: shallow, post"),
        "{}",
        stderr(&unplanned)
    );
    let counted = rqc(&[
        "run", "--db", &db, "shallow", "--arg", "u=7", "--arg", "c=false",
    ]);
    assert_eq!(counted.status.code(), Some(0), "{}", stderr(&counted));
    assert_eq!(stdout(&counted).trim(), "1");
}
