//! The plan verifier (spec/cost.md §12) passes every plan the compiler writes: each program of the corpus, the adversarial suite, the plan files and the examples whose shape is sound, every accepted entry point of it.

use rqc_compiler::compile;
use rqc_runtime::verifier::verify;
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

#[test]
fn every_compiled_plan_passes_the_verifier() {
    let mut checked = 0;
    let mut refused = Vec::new();
    for (name, sources) in programs() {
        let compilation = compile(&sources);
        if !compilation.checked.shape_sound {
            continue;
        }
        checked += compilation.program.entries.len();
        if let Err(error) = verify(&compilation.program) {
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
