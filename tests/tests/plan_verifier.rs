//! The plan verifier (spec/cost.md §12) passes every plan the compiler writes: each program of the corpus, the adversarial suite, the plan files and the examples whose shape is sound, every accepted entry point of it.

use rqc_compiler::compile;
use rqc_plan::{Op, Value, COMMIT_ROUND_TRIPS};
use rqc_runtime::verifier::{recomputed_bounds, verify};
use rqc_tests::{relative, repo_root, rq_files};
use std::path::PathBuf;

/// Every program the tests compile: its name and its sources.
fn programs() -> Vec<(String, Vec<(String, String)>)> {
    let read = |paths: &[PathBuf]| -> Vec<(String, String)> {
        paths
            .iter()
            .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
            .collect()
    };
    let common = read(&rq_files("tests/corpus/common"));
    let mut programs = Vec::new();
    for dir in ["tests/corpus", "tests/adversarial"] {
        for entry in std::fs::read_dir(repo_root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = relative(&path);
            let own = if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "common") {
                    continue;
                }
                read(&rq_files(&name))
            } else if path.extension().is_some_and(|e| e == "rq") {
                read(&[path])
            } else {
                continue;
            };
            let mut sources = common.clone();
            sources.extend(own);
            programs.push((name, sources));
        }
    }
    for example in [
        "social",
        "tpcc",
        "tpch",
        "ycsb",
        "linkbench",
        "feature_store",
    ] {
        let dir = format!("examples/{example}");
        programs.push((dir.clone(), read(&rq_files(&dir))));
    }
    programs.push((
        "tests/plans/shop.rq".into(),
        read(&[repo_root().join("tests/plans/shop.rq")]),
    ));
    programs.sort();
    programs
}

/// Every program of [`programs`] whose shape the checker finds sound,
/// compiled: its name and its plans.
fn compiled() -> Vec<(String, rqc_plan::CompiledProgram)> {
    programs()
        .into_iter()
        .filter_map(|(name, sources)| {
            let compilation = compile(&sources);
            compilation
                .checked
                .shape_sound
                .then_some((name, compilation.program))
        })
        .collect()
}

#[test]
fn every_compiled_plan_passes_the_verifier() {
    let mut checked = 0;
    let mut refused = Vec::new();
    for (name, program) in compiled() {
        checked += program.entries.len();
        if let Err(error) = verify(&program) {
            refused.push(format!("{name}: [{}] {}", error.code, error.message));
        }
    }
    assert!(checked > 400, "only {checked} entry points were verified");
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// A module without a `module` line is named after its file (`my-app`,
/// `9x`): its plans pass too.
#[test]
fn a_module_named_after_its_file_passes() {
    for file in ["my-app.rq", "9x.rq", "dir with spaces/é.rq"] {
        let source = "table T { id: Int key }\nquery q(i: Int) = T[i]\n";
        let compilation = compile(&[(file.to_string(), source.to_string())]);
        assert!(
            compilation.diagnostics.is_empty(),
            "{:?}",
            compilation.diagnostics
        );
        assert_eq!(compilation.program.entries.len(), 1);
        verify(&compilation.program).unwrap();
    }
}

/// The accepted entry points of the corpus programs that exercise the
/// calculus's value rules (parameter ends, narrowing, `%`, the least or
/// greatest of a list, string lengths, functions returning functions):
/// the verifier recomputes exactly the bound the checker proved, so it
/// models each rule as tightly as the checker, with the same code. (Looser
/// would refuse the plan; tighter would mean the two rule sets differ.)
#[test]
fn the_value_rules_recompute_the_checkers_bounds() {
    let mut compared = 0;
    for (name, sources) in programs() {
        let focused = [
            "soundness_false_rejections",
            "soundness_narrowing_attacks",
            "soundness_signed_arithmetic",
            "syntax_param_range",
            "type_bound_on_string",
        ];
        if !focused.iter().any(|f| name.contains(f)) {
            continue;
        }
        let compilation = compile(&sources);
        let recomputed = recomputed_bounds(&compilation.program).unwrap();
        for (entry, bound) in compilation.program.entries.iter().zip(recomputed) {
            assert_eq!(
                bound, entry.bound,
                "{name}: `{}` is recomputed as {bound:?}, the checker proved {:?}",
                entry.name, entry.bound
            );
            compared += 1;
        }
    }
    assert!(compared > 30, "only {compared} entry points were compared");
}

/// A mutation's recomputed round trips count its commit as
/// `COMMIT_ROUND_TRIPS` (the changelog head's read and the commit,
/// spec/cost.md §11): an insert's bound is recomputed exactly, and a plan
/// claiming one round trip fewer is refused.
#[test]
fn a_mutations_commit_is_two_round_trips() {
    assert_eq!(COMMIT_ROUND_TRIPS, 2);
    let source = "table T { id: Int key  v: Int }\n\
                  mutation put(i: Int, v: Int) = insert T { id: i, v: v }\n\
                  query get(i: Int) = T[i]\n";
    let program = rqc_tests::accepted(source);
    let recomputed = recomputed_bounds(&program).unwrap();
    for (entry, bound) in program.entries.iter().zip(&recomputed) {
        assert_eq!(*bound, entry.bound, "{}", entry.name);
    }
    let put = program
        .entries
        .iter()
        .position(|e| e.name == "put")
        .unwrap();
    let get = program
        .entries
        .iter()
        .position(|e| e.name == "get")
        .unwrap();
    // The read and the insert's write are one round trip each beside the
    // commit's two; the query has no commit.
    assert_eq!(
        recomputed[put].round_trips,
        recomputed[get].round_trips + COMMIT_ROUND_TRIPS
    );
    let mut short = program.clone();
    let entry = std::sync::Arc::make_mut(&mut short.entries[put]);
    entry.bound.round_trips -= 1;
    if let Some(claim) = &mut entry.root.bound {
        claim.round_trips -= 1;
    }
    let error = verify(&short).unwrap_err();
    assert_eq!(error.code, "E0631", "{}", error.message);
}

/// The entry points a program's sources mark `// loose-limit: NAME`: the
/// checker's count is above the verifier's recomputed one, by a looseness
/// the source states (spec/cost.md §12).
fn loose_limits() -> Vec<(String, String)> {
    let mut marked = Vec::new();
    for (name, sources) in programs() {
        for (_, text) in sources {
            for line in text.lines() {
                if let Some(rest) = line.trim().strip_prefix("// loose-limit: ") {
                    let entry = rest.split_whitespace().next().unwrap_or_default();
                    marked.push((name.clone(), entry.to_string()));
                }
            }
        }
    }
    marked
}

/// Every `take` or `skip` count's `Limit` in every compiled plan, its
/// maximum lowered by one, is refused as a claim the plan does not keep
/// (E0633): the count's interval is recomputed from the plan with the
/// shared rules, computed and narrowed counts included, and is exactly the
/// checker's, so one below it is seen statically and never left to the run
/// to fail with E0599. The entry points marked `// loose-limit:` are the
/// exceptions their sources explain, where the verifier's recomputation is
/// tighter than the checker's (a number's ends do not cross a function's
/// boundary in the checker; the verifier evaluates the function's body
/// with them): one of their limits lowered is accepted, so a marker left
/// after the checker became exact fails here too.
#[test]
fn every_limit_one_below_its_count_is_refused() {
    let mut lowered = 0;
    let mut accepted = Vec::new();
    let loose = loose_limits();
    let mut loose_seen: Vec<(String, String)> = Vec::new();
    for (name, program) in compiled() {
        for (e, entry) in program.entries.iter().enumerate() {
            let marked = loose.contains(&(name.clone(), entry.name.clone()));
            let mut limits = Vec::new();
            entry.root.walk(&mut |node| {
                if let Op::Limit { max, .. } = node.op {
                    if max > 0 {
                        limits.push(node.id);
                    }
                }
            });
            for id in limits {
                let mut edited = program.clone();
                let root = &mut std::sync::Arc::make_mut(&mut edited.entries[e]).root;
                root.walk_mut(&mut |node| {
                    if let (true, Op::Limit { max, .. }) = (node.id == id, &mut node.op) {
                        *max -= 1;
                    }
                });
                lowered += 1;
                match verify(&edited) {
                    Err(error) if error.code == "E0633" => {}
                    Ok(()) if marked => loose_seen.push((name.clone(), entry.name.clone())),
                    other => accepted.push(format!(
                        "{name}: `{}` operator {id}: {:?}",
                        entry.name,
                        other.map_err(|e| format!("[{}] {}", e.code, e.message))
                    )),
                }
            }
        }
    }
    assert!(lowered > 100, "only {lowered} limits were lowered");
    assert!(accepted.is_empty(), "{}", accepted.join("\n"));
    let stale: Vec<_> = loose.iter().filter(|m| !loose_seen.contains(m)).collect();
    assert!(
        stale.is_empty(),
        "marked `// loose-limit:` and exact (or not found): {stale:?}"
    );
}

/// `-0.0` in a plan's constant (spec/cost.md §12): a program built in
/// memory with `-0.0` in a constant is refused (E0621), and nothing is
/// installed, as a default of `-0.0` is refused (E0613): the verifier
/// checks a plan, it never rewrites one. A plan file spelling `-0.0` reads
/// as `0.0` (the reader canonicalises every float, spec/types.md "Value
/// identity"), so the same plan as a file passes, and runs with `0.0`.
#[test]
fn minus_zero_in_a_constant_is_refused_in_memory_and_canonical_from_a_file() {
    let source = "table T { id: Int key  x: Float }\n\
                  mutation put(i: Int, x: Float) = insert T { id: i, x: x }\n\
                  query scaled(i: Int) = T[i] |> map(r => r.x * 2.5)\n";
    let mut program = rqc_tests::accepted(source);
    let scaled = program
        .entries
        .iter()
        .position(|e| e.name == "scaled")
        .unwrap();
    let mut edited = 0;
    std::sync::Arc::make_mut(&mut program.entries[scaled])
        .root
        .walk_mut(&mut |node| {
            if let Op::Const(Value::Float(x)) = &mut node.op {
                *x = -0.0;
                edited += 1;
            }
        });
    assert_eq!(edited, 1);
    let error = verify(&program).unwrap_err();
    assert_eq!(error.code, "E0621", "{}", error.message);
    assert!(error.message.contains("-0.0"), "{}", error.message);
    let mut db = rqc::Database::in_memory();
    let refused = db.install(program.clone()).unwrap_err();
    assert_eq!(refused.code(), "E0621");
    assert!(db.program().is_none(), "a refused program was installed");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("minus-zero.rqc.json");
    let text = serde_json::to_string(&program).unwrap();
    assert!(text.contains("-0.0"), "the file spells -0.0");
    std::fs::write(&path, text).unwrap();
    let read = rqc::read_plan(&path).unwrap();
    let mut constants = Vec::new();
    read.entry("scaled").unwrap().root.walk(&mut |node| {
        if let Op::Const(Value::Float(x)) = &node.op {
            constants.push(x.to_bits());
        }
    });
    assert_eq!(constants, [0.0f64.to_bits()]);
    db.install(read).unwrap();
    db.run("put", &[1.into(), 4.0.into()]).unwrap();
    let output = db.run("scaled", &[1.into()]).unwrap();
    // `4.0 * 0.0`, and `0.0`'s bits (`==` would take `-0.0` for it).
    match output.value {
        Value::Float(x) => assert_eq!(x.to_bits(), 0.0f64.to_bits()),
        other => panic!("scaled(1) answered {other}"),
    }
}

/// An entry point compiled beside the installed program but not installed
/// (a REPL line, a watch) is verified before it runs, as an installed one
/// is at install: its plan claiming less than it reads is refused, never
/// run to E0599 (adversary finding: a REPL line's plan was never checked).
#[test]
fn an_entry_run_without_installing_is_verified_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = rqc::Database::open(dir.path().join("db")).unwrap();
    db.install_source(
        "shop.rq",
        "table P { id: Int key  a: Int  index by_a (a) }
         query two(u: Int) = P.by_a[u] |> take(2)
         mutation add(id: Int, a: Int) = insert P { id: id, a: a }",
    )
    .unwrap();
    for id in 1..=3 {
        db.run("add", &[Value::Int(id), Value::Int(1)]).unwrap();
    }
    let installed = db.program().unwrap().entry("two").unwrap().clone();
    let mut line = installed.clone();
    line.name = "line".into();
    // As compiled, it runs: two rows.
    let output = db.run_entry(&line, &[Value::Int(1)]).unwrap();
    assert_eq!(output.rows().len(), 2);
    // Its root claiming one row less than it reads: refused before a read.
    let mut bound = line.root.bound.expect("the root is bounded");
    bound.rows -= 1;
    line.root.bound = Some(bound);
    let refused = db.run_entry(&line, &[Value::Int(1)]).unwrap_err();
    assert!(
        refused.code().starts_with("E06"),
        "a verifier's code, not a run's: {refused:?}"
    );
}

/// A program whose plans read a row's column (`Column`), update and upsert
/// by column position, and read a structural record's field (`Field`).
const POSTS: &str = "table Post { id: Int key  author: String  title: String  score: Int }
query title(i: Int) = Post[i].title
query pick(i: Int) = { let r = { a: i, b: i + 1 }; r.b }
mutation retitle(i: Int, t: String) = update Post[i] { title: t }
mutation put(i: Int, t: String) = upsert Post { id: i, author: \"a\", title: t, score: 0 }
";

/// The first object of `node`'s tree (pre-order) that holds `key`.
fn holder<'a>(
    node: &'a mut serde_json::Value,
    key: &str,
) -> Option<&'a mut serde_json::Map<String, serde_json::Value>> {
    match node {
        serde_json::Value::Object(map) => {
            if map.contains_key(key) {
                return Some(map);
            }
            map.values_mut().find_map(|v| holder(v, key))
        }
        serde_json::Value::Array(items) => items.iter_mut().find_map(|v| holder(v, key)),
        _ => None,
    }
}

/// The honest plan of [`POSTS`] with `edit` made to entry `entry`'s tree,
/// installed as a plan file over a database holding the honest program and
/// one post: the refusal's code and message, after checking nothing was
/// installed (the honest program still answers).
fn edited_posts(entry: &str, edit: impl FnOnce(&mut serde_json::Value)) -> (&'static str, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut db = rqc::Database::open(dir.path().join("db")).unwrap();
    db.install_source("posts.rq", POSTS).unwrap();
    db.run("put", &[Value::Int(1), Value::from("hello")])
        .unwrap();
    let mut plan = serde_json::to_value(rqc_tests::accepted(POSTS)).unwrap();
    edit(&mut rqc_tests::plan_entry(&mut plan, entry)["root"]);
    let refused = rqc_tests::refused_install(&mut db, dir.path(), &plan);
    let answer = db.run("title", &[Value::Int(1)]).unwrap().value;
    assert_eq!(
        answer,
        Value::from("hello"),
        "the honest program still runs"
    );
    refused
}

/// Positions are what the run indexes rows with, comparing no name: a
/// hand-edited position past the table's columns, or at another column than
/// the plan names, in a row's read, an update's change or an upsert's
/// column, is refused with E0627 naming both, and nothing is installed; so
/// is a structural record's field read at a position that holds another
/// field (the executor holds a record's fields in their names' order).
#[test]
fn a_column_at_a_position_the_schema_does_not_hold_is_refused() {
    let honest = rqc_tests::accepted(POSTS);
    verify(&honest).unwrap();
    let mut ops = String::new();
    for entry in &honest.entries {
        entry
            .root
            .walk(&mut |n| ops.push_str(&format!("{:?} ", n.op)));
    }
    assert!(
        ops.contains("Column("),
        "a row's read is by position: {ops}"
    );
    assert!(
        ops.contains("Column(Node { id: 7, op: Var(\"r#1\"), bound: None }, ColumnAt { position: 1, name: \"b\" })"),
        "a record's read is by position, its name's rank: {ops}"
    );
    assert!(!ops.contains("Field("), "no read is by name: {ops}");

    let (code, message) = edited_posts("title", |root| {
        holder(root, "Column").unwrap()["Column"][1]["position"] = 99.into();
    });
    assert_eq!(code, "E0627", "{message}");
    assert!(
        message.contains("column 99 of `Post`, which has 4 columns"),
        "{message}"
    );

    let (code, message) = edited_posts("title", |root| {
        holder(root, "Column").unwrap()["Column"][1]["position"] = 1.into();
    });
    assert_eq!(code, "E0627", "{message}");
    assert!(message.contains("is `author`, not `title`"), "{message}");

    let (code, message) = edited_posts("retitle", |root| {
        holder(root, "Update").unwrap()["Update"]["changes"][0][0]["position"] = 3.into();
    });
    assert_eq!(code, "E0627", "{message}");
    assert!(message.contains("is `score`, not `title`"), "{message}");

    let (code, message) = edited_posts("put", |root| {
        holder(root, "Upsert").unwrap()["Upsert"]["columns"][2][0]["position"] = 4.into();
    });
    assert_eq!(code, "E0627", "{message}");
    assert!(message.contains("column 4 of `Post`"), "{message}");

    let (code, message) = edited_posts("pick", |root| {
        // `r.b` read at `a`'s position.
        holder(root, "Column").unwrap()["Column"][1]["position"] = 0.into();
    });
    assert_eq!(code, "E0627", "{message}");
    assert!(
        message.contains("field 0 of the record is `a`, not `b`"),
        "{message}"
    );

    let (code, message) = edited_posts("pick", |root| {
        // Past the record's fields.
        holder(root, "Column").unwrap()["Column"][1]["position"] = 2.into();
    });
    assert_eq!(code, "E0625", "{message}");
}
