//! `rqc run --page` and `--page-token`: the social feed page by page, the
//! token of each page printed on standard error, and refused tokens.

use super::{rqc, rqc_with_input, stderr, stdout};

/// The command a page printed to run the next, if it was not the last.
fn hint(output: &std::process::Output) -> Option<String> {
    stderr(output)
        .lines()
        .find_map(|l| l.strip_prefix("next page: "))
        .map(str::to_string)
}

/// The token a page printed, if it was not the last.
fn token(output: &std::process::Output) -> Option<String> {
    let hint = hint(output)?;
    let (_, token) = hint.rsplit_once(" --page-token ")?;
    Some(token.to_string())
}

/// Runs a printed command as a person pastes it: through a shell, from the
/// workspace root, with this `rqc` first on PATH.
fn in_a_shell(command: &str) -> std::process::Output {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_rqc"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(super::repo())
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn ids(output: &std::process::Output) -> Vec<i64> {
    stdout(output)
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("a JSON row");
            row["id"].as_i64().expect("an id")
        })
        .collect()
}

#[test]
fn the_feed_pages_through_every_post_newest_first_and_refuses_bad_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").to_string_lossy().into_owned();
    // Seven posts at four times: ties on `at` are broken by id, newest first.
    let add = |id: i64, at: i64| {
        let out = rqc(&[
            "run",
            "--db",
            &db,
            "examples/social",
            "add_post",
            "--arg",
            &format!("id={id}"),
            "--arg",
            "author=1",
            "--arg",
            &format!("at={at}"),
            "--arg",
            "body=hi",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    };
    let user = rqc(&[
        "run",
        "--db",
        &db,
        "examples/social",
        "add_user",
        "--arg",
        "id=1",
        "--arg",
        "handle=ann",
        "--arg",
        "name=Ann",
        "--arg",
        "country=NZ",
    ]);
    assert_eq!(user.status.code(), Some(0), "{}", stderr(&user));
    for (id, at) in [
        (1, 10),
        (2, 10),
        (3, 11),
        (4, 12),
        (5, 12),
        (6, 12),
        (7, 13),
    ] {
        add(id, at);
    }
    let first = rqc(&["run", "--db", &db, "newest", "--arg", "n=3", "--page"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(ids(&first), [7, 6, 5]);
    assert!(
        stderr(&first).contains("seeks 1 (bound 1)"),
        "{}",
        stderr(&first)
    );
    let mut all = ids(&first);
    // Each page prints the command that runs the next: pasted into a
    // shell, it runs.
    let mut next = hint(&first).expect("a full page has a token");
    assert!(
        next.starts_with(&format!("rqc run --db {db} newest --arg n=3 --page-token ")),
        "{next}"
    );
    let last = loop {
        let page = in_a_shell(&next);
        assert_eq!(page.status.code(), Some(0), "{next}: {}", stderr(&page));
        assert!(
            stderr(&page).contains("seeks 1 (bound 1)"),
            "{}",
            stderr(&page)
        );
        all.extend(ids(&page));
        match hint(&page) {
            Some(t) => next = t,
            None => break page,
        }
    };
    assert!(stderr(&last).contains("last page"), "{}", stderr(&last));
    assert_eq!(all, [7, 6, 5, 4, 3, 2, 1]);

    // The keyset query written by hand gives the same second page.
    let by_hand = rqc(&[
        "run",
        "--db",
        &db,
        "feed_after",
        "--arg",
        "t=12",
        "--arg",
        "i=5",
        "--arg",
        "n=3",
    ]);
    assert_eq!(ids(&by_hand), [4, 3, 2]);

    let again = token(&first).unwrap();
    // --arg beside a token: the same values run, others are refused.
    let same = rqc(&[
        "run",
        "--db",
        &db,
        "newest",
        "--arg",
        "n=3",
        "--page-token",
        &again,
    ]);
    assert_eq!(ids(&same), [4, 3, 2], "{}", stderr(&same));
    let differs = rqc(&[
        "run",
        "--db",
        &db,
        "newest",
        "--arg",
        "n=5",
        "--page-token",
        &again,
    ]);
    assert_eq!(differs.status.code(), Some(1), "{}", stderr(&differs));
    assert!(
        stderr(&differs).contains("[E0607] Error: `--arg n=5` differs from the page token's `n=3`"),
        "{}",
        stderr(&differs)
    );
    assert!(stdout(&differs).is_empty());
    for (bad, code) in [
        (format!("{again}00"), "E0533"),
        ("not a token".to_string(), "E0533"),
    ] {
        let refused = rqc(&["run", "--db", &db, "newest", "--page-token", &bad]);
        assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
        assert!(stderr(&refused).contains(code), "{}", stderr(&refused));
        assert!(stdout(&refused).is_empty());
    }
    let other = rqc(&["run", "--db", &db, "recent_posts", "--page-token", &again]);
    assert!(stderr(&other).contains("E0534"), "{}", stderr(&other));
    let unpageable = rqc(&["run", "--db", &db, "user", "--arg", "id=1", "--page"]);
    assert!(
        stderr(&unpageable).contains("E0532"),
        "{}",
        stderr(&unpageable)
    );

    // The REPL pages an expression: four rows, then the last three.
    let repl = rqc_with_input(
        &["repl", "--db", &db, "examples/social"],
        ":page Post.by_time |> map(p => { post: p.id }) |> take(4)\n:next\n:next\n:page User[1]\n",
    );
    let out = stdout(&repl);
    let pages: Vec<&str> = out.split("rows read").collect();
    assert_eq!(pages.len(), 3, "{out}");
    for (page, ids) in pages[..2].iter().zip([[7, 6, 5, 4].as_slice(), &[3, 2, 1]]) {
        let shown: Vec<i64> = page.lines().filter_map(|l| l.trim().parse().ok()).collect();
        assert_eq!(shown, ids, "{out}");
    }
    assert!(out.contains(":next for the next page"), "{out}");
    assert!(
        out.contains("the last page\nthat was the last page"),
        "{out}"
    );
    assert!(out.contains("E0532"), "{out}");
}
