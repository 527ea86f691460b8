//! Adversarial runs of helpers and function values: each program of tests/adversarial runs on skewed data with edge arguments, against the reference evaluator and its printed bound.
//!
//! The data: one user follows everyone, authors have up to 100x more posts
//! than any bound reads. The arguments: every combination of negative,
//! zero, small, boundary and extreme integers (`i64::MIN`, `i64::MAX`),
//! empty and repeating lists. The programs shadow names across helpers,
//! choose functions by `if`, hold them in lists and records, pass counts
//! through helpers and aggregates, and call entry points from each other
//! with swapped parameters (each file's comments say what it attacks).

use rqc_compiler::compile;
use rqc_plan::{ColumnType, EntryKind, ParamType, Value};
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::fixtures::with_fixtures;
use rqc_tests::reference::Reference;
use rqc_tests::state::{reference_tables, store_tables};
use rqc_tests::{compiled_cleanly, repo_root};
use std::panic::{catch_unwind, AssertUnwindSafe};

const INTS: &[i64] = &[
    -1000,
    -100,
    -7,
    -1,
    0,
    1,
    2,
    3,
    5,
    7,
    20,
    21,
    40,
    41,
    i64::MAX,
    i64::MIN,
];

fn combos(params: &[(ParamType, Option<i64>)]) -> Vec<Vec<Value>> {
    let mut out = vec![vec![]];
    for (ty, max) in params {
        let choices: Vec<Value> = match ty {
            ParamType::Scalar(ColumnType::Int) => INTS
                .iter()
                .filter(|v| max.is_none_or(|m| **v <= m))
                .map(|v| Value::Int(*v))
                .chain(max.map(Value::Int))
                .collect(),
            ParamType::Scalar(ColumnType::Bool) => vec![true.into(), false.into()],
            ParamType::Scalar(ColumnType::String) => vec!["x".into(), "".into()],
            ParamType::List(_) => vec![
                Value::List(vec![]),
                Value::List(vec![Value::Int(1000), Value::Int(1001), Value::Int(1000)]),
                Value::List((995..1005).map(Value::Int).collect()),
                Value::List(vec![Value::Int(1), Value::Int(2)]),
            ],
            _ => vec![Value::List(vec![])],
        };
        out = out
            .into_iter()
            .flat_map(|prefix| {
                choices.iter().map(move |c| {
                    let mut p = prefix.clone();
                    p.push(c.clone());
                    p
                })
            })
            .collect();
        if out.len() > 400 {
            out.truncate(400);
        }
    }
    out
}

fn run_file(path: &str) {
    run_file_on(path, Backend::Memory)
}

fn run_file_on(path: &str, backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = compiled_cleanly(&with_fixtures(&[]));
    let mut engine = Engine::open(
        dir.path(),
        OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    engine.install(fixtures.program.clone()).unwrap();
    let mut reference = Reference::new(&fixtures.checked);
    {
        let mut run = |name: &str, args: Vec<Value>| {
            engine
                .run(name, &args)
                .unwrap_or_else(|e| panic!("{name}({args:?}): {e}"));
            reference.run(name, &args);
        };
        run("add_country", vec!["NZ".into(), "n".into()]);
        for id in 0..=40i64 {
            run(
                "add_user",
                vec![
                    id.into(),
                    format!("h{id}").into(),
                    format!("U{id}").into(),
                    "NZ".into(),
                ],
            );
        }
        for b in 0..=40i64 {
            if b != 1 {
                run(
                    "add_follow",
                    vec![1.into(), b.into(), ((b * 37) % 11).into()],
                );
            }
            if b != 2 && b % 3 == 0 {
                run("add_follow", vec![2.into(), b.into(), (b % 4).into()]);
            }
            if b != 5 && b % 7 == 0 {
                run("add_follow", vec![5.into(), b.into(), 3.into()]);
            }
        }
        let mut id = 0i64;
        for (author, n) in [(2i64, 300i64), (3, 2000), (7, 3), (0, 60), (40, 1)] {
            for k in 0..n {
                id += 1;
                run(
                    "add_post",
                    vec![
                        id.into(),
                        author.into(),
                        ((k * 13) % 97).into(),
                        format!("p{id}").into(),
                    ],
                );
            }
        }
    }
    let data = reference.tables.clone();
    let compilation = compile(&with_fixtures(&[path]));
    // Rejected definitions are not installed; the accepted ones run.
    engine.install(compilation.program.clone()).unwrap();
    let mut failures = Vec::new();
    let mut runs = 0;
    let mut data_now = data.clone();
    for entry in compilation.program.entries.iter() {
        if entry.module == "fixtures" {
            continue;
        }
        let params: Vec<_> = entry.params.iter().map(|p| (p.ty.clone(), p.max)).collect();
        for args in combos(&params) {
            let before = store_tables(engine.store(), &compilation.program.schema);
            let got = engine.run(&entry.name, &args);
            let mut reference = Reference::new(&compilation.checked);
            reference.tables = data_now.clone();
            let expected = catch_unwind(AssertUnwindSafe(|| {
                let v = reference.run(&entry.name, &args);
                (
                    v,
                    reference_tables(&reference, &compilation.program.schema),
                    reference.tables.clone(),
                )
            }));
            runs += 1;
            match (got, expected) {
                (Ok(out), Ok((value, tables, raw))) => {
                    if out.value != value {
                        failures.push(format!(
                            "VALUE {}({args:?}): got {:?} expected {:?}",
                            entry.name, out.value, value
                        ));
                    }
                    if out.stats.seeks > entry.bound.seeks
                        || out.stats.rows > entry.bound.rows
                        || out.stats.round_trips > entry.bound.round_trips
                    {
                        failures.push(format!(
                            "BOUND {}({args:?}): read {:?} bound {:?}",
                            entry.name, out.stats, entry.bound
                        ));
                    }
                    if entry.kind == EntryKind::Mutation {
                        let after = store_tables(engine.store(), &compilation.program.schema);
                        if after != tables {
                            failures.push(format!(
                                "STATE {}({args:?}) differs from reference",
                                entry.name
                            ));
                        }
                        data_now = raw;
                    }
                }
                (Err(e), Ok((value, _, _))) => {
                    if !e.code.starts_with("E050")
                        && !e.code.starts_with("E06")
                        && e.code != "E0530"
                    {
                        failures.push(format!(
                            "ERR {}({args:?}): engine {e} but reference {:?}",
                            entry.name, value
                        ));
                    } else {
                        eprintln!(
                            "refused {}({args:?}): {e} (reference {:?})",
                            entry.name, value
                        );
                    }
                    if before != store_tables(engine.store(), &compilation.program.schema) {
                        failures.push(format!("REFUSED-WROTE {}({args:?})", entry.name));
                    }
                }
                (Ok(out), Err(_)) => {
                    eprintln!(
                        "reference panicked on {}({args:?}); engine gave {:?}",
                        entry.name, out.value
                    );
                    if out.stats.seeks > entry.bound.seeks || out.stats.rows > entry.bound.rows {
                        failures.push(format!(
                            "BOUND {}({args:?}): read {:?} bound {:?}",
                            entry.name, out.stats, entry.bound
                        ));
                    }
                }
                (Err(e), Err(_)) => eprintln!("both refused {}({args:?}): {e}", entry.name),
            }
        }
    }
    eprintln!("{runs} runs");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a1_shadowed_names_diamonds_and_function_values() {
    run_file("tests/adversarial/a1.rq");
}

#[test]
fn a2_higher_order_costs() {
    run_file("tests/adversarial/a2.rq");
}

#[test]
fn a3_function_values_applied_at_run_time() {
    run_file("tests/adversarial/a3.rq");
}

#[test]
fn a4_take_counts_through_helpers() {
    run_file("tests/adversarial/a4.rq");
}

#[test]
fn a5_counts_from_lists_records_and_aggregates() {
    run_file("tests/adversarial/a5.rq");
}

#[test]
fn a6_entry_points_calling_each_other() {
    run_file("tests/adversarial/a6.rq");
}

#[test]
fn a7_sort_orders() {
    run_file("tests/adversarial/a7.rq");
}

#[test]
fn a8_top_k_through_helpers() {
    run_file("tests/adversarial/a8.rq");
}

/// The incremental analysis (the language server's, and `compile`'s):
/// after a helper's text changes, in the same or another module, every plan
/// that inlined it is lowered again — the plans equal a fresh compilation's.
#[test]
fn incremental_plans_follow_a_changed_helper() {
    use rqc_compiler::compile_analysis;
    use rqc_compiler::db::Analysis;
    let helpers =
        |body: &str| format!("module helpers\nfn h(x: Int) = {body}\nfn g(x: Int) = h(x) * 2\n");
    let app = "module app\nimport helpers.{h, g}\nimport social.{User, Follow, Post, Country}\nquery q(x: Int) = [h(x), g(x)]\nquery r(u: Int) = Follow[u] |> map(f => g(f.followee))\n";
    let mut files = with_fixtures(&[]);
    files.push(("helpers.rq".into(), helpers("x + 1")));
    files.push(("app.rq".into(), app.into()));
    let mut analysis = Analysis::new(&files);
    let first = compile_analysis(&analysis);
    let mut problems = Vec::new();
    for body in [
        "x + 2",
        "x * 3 - 1",
        "User[x] |> map(v => v.id) |> unwrap_or(7)",
        "x + 2",
        "0 - x",
    ] {
        analysis.set_file("helpers.rq", &helpers(body));
        let incremental = compile_analysis(&analysis);
        let mut fresh_files = files.clone();
        let i = fresh_files
            .iter()
            .position(|(n, _)| n == "helpers.rq")
            .unwrap();
        fresh_files[i].1 = helpers(body);
        let fresh = compile(&fresh_files);
        if incremental.program != fresh.program {
            problems.push(format!(
                "h(x) = {body}: the incremental plans differ from a fresh compilation's"
            ));
        }
        if format!("{:?}", incremental.checked.verdicts) != format!("{:?}", fresh.checked.verdicts)
        {
            problems.push(format!(
                "h(x) = {body}: the incremental verdicts differ from a fresh compilation's"
            ));
        }
    }
    let _ = first;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A table whose bound holds 3 rows per group, with 100 groups, read and
/// written through helpers whose parameters swap names.
#[test]
fn a9_bounded_groups_through_helpers() {
    let files = vec![(
        "tests/adversarial/a9.rq".to_string(),
        std::fs::read_to_string(repo_root().join("tests/adversarial/a9.rq")).unwrap(),
    )];
    let compilation = compiled_cleanly(&files);
    let mut engine = Engine::in_memory();
    engine.install(compilation.program.clone()).unwrap();
    let mut reference = Reference::new(&compilation.checked);
    for g in 0..100i64 {
        for n in 0..3i64 {
            let args = vec![Value::Int(g), Value::Int(n), Value::Int((g * 7 + n) % 5)];
            engine.run("put", &args).unwrap();
            reference.run("put", &args);
        }
    }
    let mut failures = Vec::new();
    let ints = [-1i64, 0, 1, 2, 3, 4, 7, 99, 100, i64::MAX];
    let plan: Vec<(&str, usize)> = vec![
        ("q1", 2),
        ("q2", 2),
        ("q3", 1),
        ("q4", 2),
        ("q5", 2),
        ("put_in", 3),
        ("bump", 2),
        ("drop_via", 2),
        ("bump_all", 2),
        ("put", 3),
        ("q3", 1),
        ("q1", 2),
    ];
    for (name, arity) in plan {
        let entry = compilation.program.entry(name).unwrap().clone();
        let mut combos: Vec<Vec<Value>> = vec![vec![]];
        for i in 0..arity {
            let max = entry.params[i].max;
            let list = matches!(entry.params[i].ty, rqc_plan::ParamType::List(_));
            combos = combos
                .into_iter()
                .flat_map(|p| {
                    let choices: Vec<Value> = if list {
                        vec![
                            Value::List(vec![0.into(), 1.into(), 2.into(), 1.into()]),
                            Value::List(vec![]),
                        ]
                    } else {
                        ints.iter()
                            .filter(|v| max.is_none_or(|m| **v <= m))
                            .map(|v| Value::Int(*v))
                            .collect()
                    };
                    choices.into_iter().map(move |c| {
                        let mut p = p.clone();
                        p.push(c);
                        p
                    })
                })
                .collect();
        }
        for args in combos {
            let got = engine.run(name, &args);
            let snapshot = reference.tables.clone();
            let expected = catch_unwind(AssertUnwindSafe(|| reference.run(name, &args)));
            match (got, expected) {
                (Ok(out), Ok(value)) => {
                    if out.value != value {
                        failures.push(format!(
                            "VALUE {name}({args:?}): got {:?} expected {:?}",
                            out.value, value
                        ));
                    }
                    if out.stats.seeks > entry.bound.seeks
                        || out.stats.rows > entry.bound.rows
                        || out.stats.round_trips > entry.bound.round_trips
                    {
                        failures.push(format!(
                            "BOUND {name}({args:?}): read {:?} bound {:?}",
                            out.stats, entry.bound
                        ));
                    }
                    if entry.kind == EntryKind::Mutation
                        && store_tables(engine.store(), &compilation.program.schema)
                            != reference_tables(&reference, &compilation.program.schema)
                    {
                        failures.push(format!("STATE {name}({args:?})"));
                    }
                }
                (Err(e), _) => {
                    reference.tables = snapshot;
                    if !e.code.starts_with("E050") && e.code != "E0530" {
                        failures.push(format!("ERR {name}({args:?}): {e}"));
                    }
                }
                (Ok(out), Err(_)) => {
                    reference.tables = snapshot;
                    eprintln!(
                        "reference panicked: {name}({args:?}) engine {:?}",
                        out.value
                    )
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a3_on_lmdb() {
    run_file_on("tests/adversarial/a3.rq", Backend::Lmdb);
}
#[test]
fn a3_on_sled() {
    run_file_on("tests/adversarial/a3.rq", Backend::Sled);
}
#[test]
fn a8_on_redb() {
    run_file_on("tests/adversarial/a8.rq", Backend::Redb);
}
