//! The runtime's layers (ARCHITECTURE.md), held to the code: each module of `runtime/src` imports only modules of its own layer or below (an upward import listed as debt may only go).
//!
//! A module is a file or directory under `runtime/src` (`live`'s files are
//! placed one by one: its changelog and key ranges sit below the hub). An
//! import is any `crate::m` path in code (comments, test modules and
//! `*_tests.rs` files left out), and `super::m` inside `live`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom first, and the modules each holds.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "error",
            "error_codes",
            "backoff",
            "clock",
            "interrupt",
            "plan_format",
        ],
    ),
    ("store", &["store"]),
    ("layout", &["encoding", "rows", "entry_bytes", "bound"]),
    (
        "transaction",
        &[
            "session",
            "meter",
            "read_ahead",
            "commit_limit",
            "live::changelog",
            "live::ranges",
        ],
    ),
    (
        "data",
        &[
            "constraints",
            "row_types",
            "aggregates",
            "cascade",
            "catalog",
            "column_changes",
            "migrate",
            "verify",
            "dump",
        ],
    ),
    (
        "execution",
        &[
            "values",
            "halt",
            "arithmetic",
            "interp",
            "combinators",
            "scan",
            "lookup",
            "batch",
            "entry_args",
            "writes",
            "verifier",
        ],
    ),
    (
        "engine",
        &[
            "engine",
            "evaluate",
            "output",
            "open",
            "group",
            "transaction",
            "live",
            "load",
            "batched_load",
            "upgrade",
            "page",
            "stale_schema",
        ],
    ),
];

/// Upward imports not yet taken apart: the list may only shrink (none
/// left; an entry here must say why it cannot be undone yet).
const DEBT: &[(&str, &str)] = &[];

/// The directories whose files are placed one by one.
const SPLIT: &[&str] = &["live"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// The module a file is part of, or `None` for test files.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?;
    let name = file.file_name()?.to_str()?;
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return None;
    }
    let mut parts = relative.iter().map(|p| p.to_str().unwrap_or_default());
    let top = parts.next()?.trim_end_matches(".rs").to_string();
    let placed = format!("{top}::{}", name.trim_end_matches(".rs"));
    if SPLIT.contains(&top.as_str()) && layer_of(&placed).is_some() {
        return Some(placed);
    }
    Some(top)
}

/// The code of a file: up to its test module, without comment lines.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The paths (first two segments) named after each `prefix` in `code`:
/// `crate::a::b` gives `a::b`, `crate::{a, b::c}` gives `a` and `b::c`.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        rest = &rest[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                found.push(two_segments(item.trim()));
            }
        } else {
            found.push(two_segments(rest));
        }
    }
    found
}

fn two_segments(text: &str) -> String {
    let first = identifier(text);
    match text[first.len()..].strip_prefix("::") {
        Some(after) if !identifier(after).is_empty() => {
            format!("{first}::{}", identifier(after))
        }
        _ => first.to_string(),
    }
}

/// The module a path names, when it is one.
fn target(path: &str, modules: &BTreeSet<String>) -> Option<String> {
    if modules.contains(path) {
        return Some(path.to_string());
    }
    let top = path.split("::").next()?;
    modules.contains(top).then(|| top.to_string())
}

/// Every import between two modules of `runtime/src`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = rqc_tests::repo_root().join("runtime/src");
    let files = rqc_tests::rust_files(&src);
    let placed: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "lib.rs"))
        .filter_map(|f| Some((module_of(&src, &f)?, f)))
        .collect();
    let modules: BTreeSet<String> = placed.iter().map(|(m, _)| m.clone()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &placed {
        let code = code(&std::fs::read_to_string(file).unwrap());
        let mut named = paths_after(&code, "crate::");
        let top = module.split("::").next().unwrap_or_default();
        let is_child = file.parent() != Some(src.as_path());
        if is_child && file.file_name().is_some_and(|n| n != "mod.rs") {
            named.extend(
                paths_after(&code, "super::")
                    .into_iter()
                    .map(|p| format!("{top}::{p}")),
            );
        }
        for path in named {
            let Some(to) = target(&path, &modules) else {
                continue;
            };
            // A directory's own files are its business (its mod.rs
            // declares and re-exports them).
            let parent_to_child = module == top && to.starts_with(&format!("{top}::"));
            if &to != module && !parent_to_child {
                edges.entry(module.clone()).or_default().insert(to);
            }
        }
        edges.entry(module.clone()).or_default();
    }
    edges
}

#[test]
fn every_runtime_module_has_a_layer_and_imports_none_above_it() {
    let edges = imports();
    let unplaced: Vec<&String> = edges.keys().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "modules without a layer (add each to LAYERS here and to ARCHITECTURE.md): {unplaced:?}"
    );
    let mut upward = Vec::new();
    for (from, tos) in &edges {
        for to in tos {
            if layer_of(to) > layer_of(from) {
                upward.push((from.as_str(), to.as_str()));
            }
        }
    }
    let new: Vec<String> = upward
        .iter()
        .filter(|edge| !DEBT.contains(edge))
        .map(|(from, to)| {
            format!(
                "{from} ({}) imports {to} ({})",
                LAYERS[layer_of(from).unwrap()].0,
                LAYERS[layer_of(to).unwrap()].0
            )
        })
        .collect();
    assert!(
        new.is_empty(),
        "imports that point up a layer (move what is shared down, or pass it in from above):\n{}",
        new.join("\n")
    );
    let paid: Vec<&(&str, &str)> = DEBT.iter().filter(|edge| !upward.contains(edge)).collect();
    assert!(
        paid.is_empty(),
        "upward imports no longer made: take them off DEBT (and ARCHITECTURE.md): {paid:?}"
    );
}

/// The scanner itself: what it reads as an import and what it leaves.
#[test]
fn the_scanner_reads_paths_groups_and_skips_comments_and_tests() {
    let text = "use crate::a::B;\n// crate::commented\nuse crate::{c, d::e};\nfn f() { crate::g::h(); }\n#[cfg(test)]\nmod tests { use crate::tested; }";
    let named = paths_after(&code(text), "crate::");
    assert_eq!(named, ["a::B", "c", "d::e", "g::h"]);
    let modules: BTreeSet<String> = ["a", "d", "live", "live::ranges"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(target("a::B", &modules).as_deref(), Some("a"));
    assert_eq!(
        target("live::ranges", &modules).as_deref(),
        Some("live::ranges")
    );
    assert_eq!(target("live::Hub", &modules).as_deref(), Some("live"));
    assert_eq!(target("c", &modules), None);
}
