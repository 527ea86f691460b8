//! Shared helpers for the cross-crate suites: finding the repository's `.rq` files.

pub mod arguments;
pub mod crash_workload;
pub mod etcd;
pub mod etcd_cluster;
pub mod fixtures;
pub mod live_groups;
pub mod programs;
pub mod reference;
mod reference_deletes;
pub mod rng;
pub mod runs;
pub mod state;
pub mod stores;
pub mod tpcc;
pub mod tpcc_conditions;
pub mod tpcc_inputs;

pub use rng::Rng;

use std::path::{Path, PathBuf};

/// Whether a run's seeks, rows and round trips are each within `bound`.
pub fn within(stats: &rqc_runtime::Stats, bound: &rqc_plan::Bound) -> bool {
    stats.seeks <= bound.seeks && stats.rows <= bound.rows && stats.round_trips <= bound.round_trips
}

/// The repository root (the workspace directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace root")
        .to_path_buf()
}

/// Every `.rq` file below `dir` (relative to the repository root), sorted.
pub fn rq_files(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(&repo_root().join(dir), &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rq") {
            out.push(path);
        }
    }
}

/// A path relative to the repository root, with `/` separators, for names
/// in snapshots and messages.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(repo_root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The codes a test file expects, from its `// expect: E0101 E0102` line.
pub fn expected_codes(text: &str) -> Option<Vec<String>> {
    text.lines()
        .find_map(|line| line.trim().strip_prefix("// expect:"))
        .map(|rest| rest.split_whitespace().map(str::to_string).collect())
}

/// How many cases a property test runs: `default`, or the number in the
/// environment variable `var` (the long runs the README reports).
pub fn cases_from_env(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The program of one accepted source file (`app.rq`); panics with the
/// diagnostics of one that is not.
pub fn accepted(source: &str) -> rqc_plan::CompiledProgram {
    compiled_cleanly(&[("app.rq".to_string(), source.to_string())]).program
}

/// The compilation of `files`; panics with the diagnostics of one that has
/// any.
pub fn compiled_cleanly(files: &[(String, String)]) -> rqc_compiler::Compilation {
    let compilation = rqc_compiler::compile(files);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:#?}",
        compilation.diagnostics
    );
    compilation
}

/// Each diagnostic of the program `files`, rendered as `rqc check` prints
/// it, without colour.
pub fn rendered_diagnostics(files: &[(String, String)]) -> Vec<String> {
    use rqc_compiler::diagnostics::{renderer, RenderOptions};
    let compilation = rqc_compiler::compile(files);
    let mut renderer = renderer(&compilation.sources, RenderOptions { color: false });
    compilation
        .diagnostics
        .iter()
        .map(|d| renderer.render(d))
        .collect()
}

/// The `field` of each row of a list of records, as strings.
pub fn string_fields(value: &rqc_plan::Value, field: &str) -> Vec<String> {
    let rqc_plan::Value::List(rows) = value else {
        panic!("not a list: {value:?}")
    };
    rows.iter()
        .map(|r| match r.field(field) {
            Some(rqc_plan::Value::Str(s)) => s.clone(),
            other => panic!("{field} of a row: {other:?}"),
        })
        .collect()
}

/// The entry point called `name` in a plan file's JSON (for the suites
/// that edit a plan as an attacker would).
pub fn plan_entry<'a>(plan: &'a mut serde_json::Value, name: &str) -> &'a mut serde_json::Value {
    plan["entries"]
        .as_array_mut()
        .expect("a plan's entries")
        .iter_mut()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

/// Installs `plan`, an edited plan file written into `dir`, which must be
/// refused with a runtime error: its code, and its text for messages.
pub fn refused_install(
    db: &mut rqc::Database,
    dir: &Path,
    plan: &serde_json::Value,
) -> (&'static str, String) {
    let path = dir.join("edited.rqc.json");
    std::fs::write(&path, serde_json::to_vec(plan).unwrap()).unwrap();
    match db.install_plan(&path).unwrap_err() {
        rqc::Error::Runtime(e) => (e.code, format!("[{}] {} — {}", e.code, e.message, e.help)),
        other => panic!("expected a runtime refusal, got {other}"),
    }
}

/// The source folders of the crates whose code ships in the product.
pub const PRODUCT_SOURCES: [&str; 6] = [
    "src",
    "cli/src",
    "compiler/src",
    "cost/src",
    "plan/src",
    "runtime/src",
];

/// The `.rs` files under `dir`, every level.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}
