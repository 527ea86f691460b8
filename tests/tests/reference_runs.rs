//! End to end against real databases, on every backend: the design's
//! examples and every query of the corpus run on generated data and give
//! the reference evaluator's answers, within their static bounds.

use rqc_compiler::{compile, Compilation};
use rqc_plan::{Entry, EntryKind, Value};
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::arguments::{arguments, Pools};
use rqc_tests::fixtures::{corpus_schemas, with_fixtures};
use rqc_tests::reference::Reference;
use rqc_tests::state::{reference_tables, store_tables};
use rqc_tests::{relative, repo_root, Rng};
use std::collections::HashMap;

fn fixture_program() -> Compilation {
    rqc_tests::compiled_cleanly(&with_fixtures(&[]))
}

/// Fills the database and the reference with the same rows.
fn load(engine: &mut Engine, reference: &mut Reference<'_>, rng: &mut Rng) {
    let mut run = |name: &str, args: Vec<Value>| {
        engine
            .run(name, &args)
            .unwrap_or_else(|e| panic!("{name}({args:?}): {e}"));
        reference.run(name, &args);
    };
    let countries = ["NZ", "FR", "JP", "BR"];
    for code in countries {
        run(
            "add_country",
            vec![code.into(), format!("Country {code}").into()],
        );
    }
    for id in 1..=30 {
        let country = countries[rng.below(4) as usize];
        run(
            "add_user",
            vec![
                id.into(),
                format!("h{id}").into(),
                format!("User {id}").into(),
                country.into(),
            ],
        );
    }
    for a in 1..=30i64 {
        for b in 1..=30i64 {
            if a != b && rng.below(4) == 0 {
                run(
                    "add_follow",
                    vec![a.into(), b.into(), rng.below(1000).into()],
                );
            }
        }
    }
    for id in 1..=200 {
        let author = 1 + rng.below(30);
        run(
            "add_post",
            vec![
                id.into(),
                author.into(),
                rng.below(500).into(),
                format!("post {id}").into(),
            ],
        );
    }
    for id in 1..=10 {
        run(
            "add_customer",
            vec![id.into(), format!("c{id}@shop").into(), rng.below(3).into()],
        );
    }
    for region in ["north", "south"] {
        run(
            "add_region",
            vec![region.into(), region.to_uppercase().into()],
        );
    }
    for id in 1..=40 {
        run(
            "add_order",
            vec![
                id.into(),
                (1 + rng.below(10)).into(),
                rng.below(100).into(),
                rng.below(1000).into(),
            ],
        );
        for n in 1..=(1 + rng.below(5)) {
            let sku = format!("sku{}", rng.below(5));
            run(
                "add_line",
                vec![
                    id.into(),
                    n.into(),
                    sku.into(),
                    (1 + rng.below(3)).into(),
                    rng.below(50).into(),
                ],
            );
        }
    }
    for id in 1..=60 {
        run(
            "add_review",
            vec![
                id.into(),
                format!("sku{}", rng.below(5)).into(),
                (1 + rng.below(5)).into(),
                rng.below(300).into(),
            ],
        );
    }
}

/// Arguments for a parameter, chosen to hit existing and missing rows.
fn open(backend: Backend, dir: &std::path::Path) -> Engine {
    Engine::open(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .unwrap()
}

/// The loaded database, the reference's tables and the corpus programs.
type LoadedCorpus = (
    Engine,
    HashMap<String, Vec<Value>>,
    Vec<(String, Compilation)>,
);

/// A database on `backend` and the reference, both loaded with the same
/// rows, and each single-file corpus program over the fixtures' schema
/// (path and compilation), in path order.
fn loaded_corpus(
    backend: Backend,
    dir: &std::path::Path,
    fixtures: &Compilation,
    rng: &mut Rng,
) -> LoadedCorpus {
    let mut engine = open(backend, dir);
    engine.install(fixtures.program.clone()).unwrap();
    let mut reference = Reference::new(&fixtures.checked);
    load(&mut engine, &mut reference, rng);
    let mut cases: Vec<_> = std::fs::read_dir(repo_root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| !path.is_dir()) // multi-module cases declare schemas of their own
        .collect();
    cases.sort();
    let programs = cases
        .into_iter()
        .filter_map(|path| {
            let mut files = corpus_schemas();
            files.push((relative(&path), std::fs::read_to_string(&path).unwrap()));
            let compilation = compile(&files);
            (compilation.program.schema == fixtures.program.schema)
                .then(|| (relative(&path), compilation))
        })
        .collect();
    (engine, reference.tables, programs)
}

/// Random arguments for `entry`: ids around the fixtures' and strings
/// that name some of their rows.
fn random_arguments(entry: &Entry, rng: &mut Rng) -> Vec<Value> {
    let pools = Pools {
        int: &|rng| rng.below(34) - 1,
        float: &rqc_tests::arguments::extreme_float,
        string: &|rng| {
            [
                "h3", "h7", "NZ", "sku1", "c2@shop", "north", "zzz", "User 4",
            ][rng.below(8) as usize]
                .to_string()
        },
        list_len: 6,
    };
    arguments(entry, &pools, rng)
}

fn check_backend(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = fixture_program();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut engine, data, programs) = loaded_corpus(backend, dir.path(), &fixtures, &mut rng);
    let mut queries = 0;
    for (path, compilation) in programs {
        engine.install(compilation.program.clone()).unwrap();
        let mut reference = Reference::new(&compilation.checked);
        reference.tables = data.clone();
        for entry in compilation
            .program
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Query)
        {
            for _ in 0..4 {
                let args = random_arguments(entry, &mut rng);
                let output = engine
                    .run(&entry.name, &args)
                    .unwrap_or_else(|e| panic!("{}: {}({args:?}) failed: {e}", path, entry.name));
                let expected = reference.run(&entry.name, &args);
                assert_eq!(output.value, expected, "{}: {}({args:?})", path, entry.name);
                assert!(
                    output.stats.seeks <= entry.bound.seeks
                        && output.stats.rows <= entry.bound.rows
                        && output.stats.round_trips <= entry.bound.round_trips,
                    "{}: {} read {:?}, bound {:?}",
                    path,
                    entry.name,
                    output.stats,
                    entry.bound
                );
                queries += 1;
            }
        }
    }
    assert!(queries >= 200, "only {queries} runs were compared");
}

#[test]
fn corpus_queries_match_the_reference_in_memory() {
    check_backend(Backend::Memory);
}

#[test]
fn corpus_queries_match_the_reference_on_sled() {
    check_backend(Backend::Sled);
}

#[test]
fn corpus_queries_match_the_reference_on_lmdb() {
    check_backend(Backend::Lmdb);
}

/// The corpus's mutations, run with random arguments: each either commits
/// what the reference computes, or is refused and changes nothing.
fn check_mutations(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = fixture_program();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut engine, mut data, programs) = loaded_corpus(backend, dir.path(), &fixtures, &mut rng);
    let (mut committed, mut refused) = (0, 0);
    for (path, compilation) in programs {
        engine.install(compilation.program.clone()).unwrap();
        for entry in compilation
            .program
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Mutation)
        {
            for _ in 0..6 {
                let args = random_arguments(entry, &mut rng);
                let before = store_tables(engine.store(), &compilation.program.schema);
                match engine.run(&entry.name, &args) {
                    Ok(output) => {
                        let mut reference = Reference::new(&compilation.checked);
                        reference.tables = data.clone();
                        let expected = reference.run(&entry.name, &args);
                        assert_eq!(output.value, expected, "{}: {}({args:?})", path, entry.name);
                        data = reference.tables.clone();
                        assert_eq!(
                            store_tables(engine.store(), &compilation.program.schema),
                            reference_tables(&reference, &compilation.program.schema),
                            "{}: {}({args:?}) left other rows than the reference",
                            path,
                            entry.name
                        );
                        committed += 1;
                    }
                    Err(error) => {
                        assert!(
                            error.code.starts_with("E050"),
                            "{}: {}({args:?}): {error}",
                            path,
                            entry.name
                        );
                        assert_eq!(
                            before,
                            store_tables(engine.store(), &compilation.program.schema),
                            "a refused mutation wrote something"
                        );
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        committed >= 20 && refused >= 5,
        "{committed} committed, {refused} refused"
    );
}

#[test]
fn corpus_mutations_commit_what_the_reference_computes_or_nothing_in_memory() {
    check_mutations(Backend::Memory);
}

#[test]
fn corpus_mutations_commit_what_the_reference_computes_or_nothing_on_sled() {
    check_mutations(Backend::Sled);
}

#[test]
fn corpus_mutations_commit_what_the_reference_computes_or_nothing_on_lmdb() {
    check_mutations(Backend::Lmdb);
}

#[test]
fn corpus_queries_match_the_reference_on_redb() {
    check_backend(Backend::Redb);
}

#[test]
fn corpus_mutations_commit_what_the_reference_computes_or_nothing_on_redb() {
    check_mutations(Backend::Redb);
}
