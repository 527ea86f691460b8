//! Plans of the corpus: snapshots a person reviews, and the promise that no
//! plan reads a range without a limit or a declared bound.

use rqc_compiler::compile;
use rqc_compiler::plan::explain;
use rqc_plan::{Node, Op};
use rqc_tests::{relative, repo_root, rq_files};

/// Every accepted entry point of every corpus program, compiled.
fn corpus_programs() -> Vec<(String, rqc_plan::CompiledProgram, rqc_plan::Schema)> {
    let common: Vec<(String, String)> = rq_files("tests/corpus/common")
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    let mut out = Vec::new();
    let root = repo_root().join("tests/corpus");
    let mut entries: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.file_name().is_some_and(|n| n == "common") {
            continue;
        }
        let files = if path.is_dir() {
            rq_files(&relative(&path))
        } else {
            vec![path.clone()]
        };
        let mut sources = common.clone();
        sources.extend(
            files
                .iter()
                .map(|p| (relative(p), std::fs::read_to_string(p).unwrap())),
        );
        let compilation = compile(&sources);
        let schema = compilation.program.schema.clone();
        out.push((relative(&path), compilation.program, schema));
    }
    out
}

/// A scan read where it stands is bounded: a declared bound (or a small
/// table) covers its prefix columns. A stream scan reads nothing itself;
/// its consumers read what they take.
fn scan_is_bounded(node: &Node, schema: &rqc_plan::Schema) -> bool {
    let Op::Scan {
        table,
        index,
        prefix,
        stream,
        ..
    } = &node.op
    else {
        return true;
    };
    if *stream {
        return true;
    }
    let table = schema.table(table).expect("the plan's table exists");
    if table.small_max.is_some() {
        return true;
    }
    let columns = match index {
        None => table.key.clone(),
        Some(name) => table
            .index(name)
            .expect("the plan's index exists")
            .columns
            .clone(),
    };
    let fixed = &columns[..prefix.len()];
    table
        .bounds
        .iter()
        .any(|b| b.columns.iter().all(|c| fixed.contains(c)))
}

#[test]
fn the_planner_never_emits_an_unbounded_scan() {
    let mut plans = 0;
    for (case, program, schema) in corpus_programs() {
        for entry in &program.entries {
            plans += 1;
            entry.root.walk(&mut |node| {
                assert!(
                    scan_is_bounded(node, &schema),
                    "{case}: `{}` has an unbounded scan:\n{}",
                    entry.name,
                    explain(entry, &program.schema)
                );
            });
            assert!(
                entry.root.bound.is_some(),
                "{case}: `{}` has no root bound",
                entry.name
            );
        }
    }
    assert!(plans >= 100, "only {plans} plans were checked");
}

#[test]
fn corpus_plans_read_as_reviewed() {
    let mut all = String::new();
    for (case, program, _) in corpus_programs() {
        for entry in &program.entries {
            all.push_str(&format!("# {case}\n{}\n", explain(entry, &program.schema)));
        }
    }
    insta::assert_snapshot!("corpus_plans", all);
}
