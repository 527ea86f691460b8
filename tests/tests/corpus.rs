//! The corpus: every program in tests/corpus states its expected verdicts in
//! `// expect:` lines, and this one test checks them all.
//!
//! - `// expect: accepted NAME SEEKS ROWS [TRIPS]` (`-` where the maximum
//!   is generic, for a function; the round trips where the case is about
//!   them)
//! - `// expect: rejected NAME CODE` (`-` for a definition rejected with
//!   no diagnostic of its own: it touches a table whose declaration has
//!   errors, which are reported there)
//! - `// expect: error CODE` (a diagnostic not tied to one definition)
//!
//! Each file directly in tests/corpus is one program; each folder (but
//! `common`) is one program of several modules. `common/` holds schemas
//! every program may import. Every definition must have an expectation, and
//! the set of diagnostic codes must be exactly the expected one.

use rqc_compiler::compile;
use rqc_tests::{relative, repo_root, rq_files};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, PartialEq)]
enum Expect {
    Accepted {
        name: String,
        seeks: Option<u64>,
        rows: Option<u64>,
        /// Checked when given.
        trips: Option<Option<u64>>,
    },
    Rejected {
        name: String,
        code: String,
    },
    Error {
        code: String,
    },
}

fn expectations(text: &str, case: &str) -> Vec<Expect> {
    let number = |s: &str| {
        if s == "-" {
            None
        } else {
            Some(
                s.parse()
                    .unwrap_or_else(|_| panic!("{case}: bad number {s}")),
            )
        }
    };
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("// expect:"))
        .map(|rest| {
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.as_slice() {
                ["accepted", name, seeks, rows] => Expect::Accepted {
                    name: name.to_string(),
                    seeks: number(seeks),
                    rows: number(rows),
                    trips: None,
                },
                ["accepted", name, seeks, rows, trips] => Expect::Accepted {
                    name: name.to_string(),
                    seeks: number(seeks),
                    rows: number(rows),
                    trips: Some(number(trips)),
                },
                ["rejected", name, code] => Expect::Rejected {
                    name: name.to_string(),
                    code: code.to_string(),
                },
                ["error", code] => Expect::Error {
                    code: code.to_string(),
                },
                _ => panic!("{case}: cannot read `// expect:{rest}`"),
            }
        })
        .collect()
}

fn cases() -> Vec<(String, Vec<PathBuf>)> {
    let root = repo_root().join("tests/corpus");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = relative(&path);
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "common") {
                continue;
            }
            cases.push((name.clone(), rq_files(&name)));
        } else if path.extension().is_some_and(|e| e == "rq") {
            cases.push((name, vec![path]));
        }
    }
    cases.sort();
    cases
}

fn read(path: &Path) -> (String, String) {
    (relative(path), std::fs::read_to_string(path).unwrap())
}

/// Checks one program; returns what differs from its expectations.
fn check_case(case: &str, files: &[PathBuf], common: &[(String, String)]) -> Vec<String> {
    let mut sources: Vec<(String, String)> = common.to_vec();
    let own: Vec<(String, String)> = files.iter().map(|f| read(f)).collect();
    sources.extend(own.iter().cloned());
    let expected: Vec<Expect> = own
        .iter()
        .flat_map(|(_, text)| expectations(text, case))
        .collect();
    if expected.is_empty() {
        return vec![format!("{case}: no `// expect:` lines")];
    }
    let compilation = compile(&sources);
    let mut problems = Vec::new();
    for verdict in &compilation.checked.verdicts {
        let found = expected.iter().find(|e| match e {
            Expect::Accepted { name, .. } | Expect::Rejected { name, .. } => *name == verdict.name,
            Expect::Error { .. } => false,
        });
        match found {
            None => problems.push(format!(
                "{case}: `{}` has no expectation (it was {})",
                verdict.name,
                if verdict.accepted {
                    "accepted"
                } else {
                    "rejected"
                }
            )),
            Some(Expect::Accepted {
                seeks, rows, trips, ..
            }) => {
                if !verdict.accepted {
                    problems.push(format!(
                        "{case}: `{}` was rejected, expected accepted",
                        verdict.name
                    ));
                } else if (verdict.seeks_max(), verdict.rows_max()) != (*seeks, *rows) {
                    problems.push(format!(
                        "{case}: `{}` has seeks {:?} rows {:?} ({} / {}), expected {:?} {:?}",
                        verdict.name,
                        verdict.seeks_max(),
                        verdict.rows_max(),
                        verdict.cost.seeks,
                        verdict.cost.rows,
                        seeks,
                        rows
                    ));
                } else if trips.is_some_and(|t| verdict.round_trips_max() != t) {
                    problems.push(format!(
                        "{case}: `{}` has round trips {:?} ({}), expected {:?}",
                        verdict.name,
                        verdict.round_trips_max(),
                        verdict.cost.trips,
                        trips.flatten()
                    ));
                }
            }
            Some(Expect::Rejected { .. }) => {
                if verdict.accepted {
                    problems.push(format!(
                        "{case}: `{}` was accepted (seeks {}, rows {}), expected rejected",
                        verdict.name, verdict.cost.seeks, verdict.cost.rows
                    ));
                }
            }
            Some(Expect::Error { .. }) => unreachable!(),
        }
    }
    for e in &expected {
        if let Expect::Accepted { name, .. } | Expect::Rejected { name, .. } = e {
            if !compilation.checked.verdicts.iter().any(|v| v.name == *name) {
                problems.push(format!(
                    "{case}: expected a verdict for `{name}`, none was given"
                ));
            }
        }
    }
    let expected_codes: BTreeSet<&str> = expected
        .iter()
        .filter_map(|e| match e {
            Expect::Rejected { code, .. } if code == "-" => None,
            Expect::Rejected { code, .. } | Expect::Error { code } => Some(code.as_str()),
            Expect::Accepted { .. } => None,
        })
        .collect();
    let actual_codes: BTreeSet<&str> = compilation
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    if expected_codes != actual_codes {
        let detail: Vec<String> = compilation
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "    {} {}:{} {}",
                    d.code, d.primary.file, d.primary.span.start, d.message
                )
            })
            .collect();
        problems.push(format!(
            "{case}: diagnostic codes {actual_codes:?}, expected {expected_codes:?}\n{}",
            detail.join("\n")
        ));
    }
    for d in &compilation.diagnostics {
        if d.help.is_empty() {
            problems.push(format!(
                "{case}: {} has no help line: {}",
                d.code, d.message
            ));
        }
        // "or …" is an alternative to a suggestion before it.
        if let Some(first) = d.help.first().filter(|h| h.starts_with("or ")) {
            problems.push(format!(
                "{case}: {}'s first help line is an alternative to nothing: {first}",
                d.code
            ));
        }
    }
    problems
}

#[test]
fn every_corpus_program_gets_its_expected_verdicts() {
    let common: Vec<(String, String)> = rq_files("tests/corpus/common")
        .iter()
        .map(|p| read(p))
        .collect();
    let cases = cases();
    assert!(
        cases.len() >= 120,
        "the corpus has {} programs; it should have at least 120",
        cases.len()
    );
    let problems: Vec<String> = cases
        .iter()
        .flat_map(|(case, files)| check_case(case, files, &common))
        .collect();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every ✔ example of the design is accepted with the bound it states, and
/// every ✘ one is rejected for the reason it states.
#[test]
fn the_design_examples_get_the_stated_verdicts() {
    let files: Vec<(String, String)> = rq_files("tests/design").iter().map(|p| read(p)).collect();
    let compilation = compile(&files);
    let verdict = |name: &str| {
        compilation
            .checked
            .verdict(name)
            .unwrap_or_else(|| panic!("no verdict for {name}"))
    };
    let accepted = |name: &str, seeks: u64, rows: u64| {
        let v = verdict(name);
        assert!(v.accepted, "{name} should be accepted");
        assert_eq!(
            (v.seeks_max(), v.rows_max()),
            (Some(seeks), Some(rows)),
            "{name}"
        );
        assert_eq!(v.class, "O(log N)");
    };
    accepted("user_by_handle", 2, 1);
    accepted("recent_posts", 1, 100);
    accepted("timeline", 5001, 55000);
    assert_eq!(
        verdict("timeline").signature,
        "timeline(u: Int, n: Int <= 100) -> [Post; ≤ 100]"
    );
    accepted("following_count", 1, 5000);
    accepted("top_followed", 5001, 10000);
    accepted("follow", 6, 6);
    accepted("rename", 3, 2);
    accepted("unfollow_all", 20001, 25000);
    let rejected = |name: &str, code: &str, message: &str, help: &str| {
        assert!(!verdict(name).accepted, "{name} should be rejected");
        let d = compilation
            .diagnostics
            .iter()
            .find(|d| d.code == code && d.message.contains(message))
            .unwrap_or_else(|| {
                panic!(
                    "{name}: no {code} saying {message:?}: {:#?}",
                    compilation.diagnostics
                )
            });
        assert!(
            d.help.iter().any(|h| h.contains(help)),
            "{name}: no help with {help:?}: {:?}",
            d.help
        );
        assert!(
            !d.secondary.is_empty() || code == "E0302",
            "{name}: the table is not labelled"
        );
    };
    rejected(
        "by_country",
        "E0301",
        "rows grow with N(User): `filter` reads every row of User",
        "index by_country (country)",
    );
    rejected(
        "by_country",
        "E0301",
        "`filter` reads every row of User",
        "User.by_country[c] |> take(k)",
    );
    rejected(
        "post_count",
        "E0301",
        "rows grow with N(Post): `count`",
        "bound author <= ",
    );
    rejected(
        "old_posts",
        "E0301",
        "rows grow with N(Post): `filter`",
        "Post.by_author[a, at < t]",
    );
    rejected(
        "posts_unbounded",
        "E0302",
        "`take(n)` bounds nothing",
        "n: Int <= 100",
    );
    rejected(
        "purge_posts",
        "E0301",
        "rows grow with N(Post): `delete`",
        "bound author <= ",
    );
}
