//! Every error code the program can emit is listed in spec/errors.md, and every code listed there is one the program emits (or is marked retired): the list is the registry users and maintainers read.
//!
//! The codes the program emits are the string literals `"E…"` (and the
//! `[E…]` a message spells out) in the sources of every crate the
//! program is built from, tests left out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `E` and four digits, right after a `"` or a `[`.
fn codes_in(text: &str, opening: &[u8]) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let mut found = BTreeSet::new();
    for at in 1..bytes.len().saturating_sub(4) {
        let code = &bytes[at..at + 5];
        if opening.contains(&bytes[at - 1])
            && code[0] == b'E'
            && code[1..].iter().all(u8::is_ascii_digit)
            && !bytes.get(at + 5).is_some_and(u8::is_ascii_digit)
        {
            found.insert(String::from_utf8(code.to_vec()).unwrap());
        }
    }
    found
}

/// The program's source, without its unit tests (a `#[cfg(test)]` module,
/// which this project keeps at a file's end) and test-only files.
fn program_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    if name.ends_with("_tests.rs") || name == "tests.rs" {
        return String::new();
    }
    match text.find("#[cfg(test)]\nmod ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[test]
fn every_code_emitted_is_listed_and_every_code_listed_is_emitted() {
    let root = repo();
    let mut files = Vec::new();
    for dir in rqc_tests::PRODUCT_SOURCES {
        files.extend(rqc_tests::rust_files(&root.join(dir)));
    }
    let mut emitted = BTreeSet::new();
    for file in &files {
        emitted.extend(codes_in(&program_text(file), b"\"["));
    }
    let errors = std::fs::read_to_string(root.join("spec/errors.md")).unwrap();
    let mut listed = BTreeSet::new();
    let mut retired = BTreeSet::new();
    for line in errors.lines() {
        let Some(row) = line.strip_prefix("| ") else {
            continue;
        };
        let code: String = row.chars().take(5).collect();
        if codes_in(&format!("[{code}"), b"[").is_empty() {
            continue;
        }
        if row.contains("retired") {
            retired.insert(code.clone());
        }
        listed.insert(code);
    }
    assert!(emitted.len() > 150, "the scan finds the codes: {emitted:?}");
    let unlisted: Vec<&String> = emitted.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "emitted, not in spec/errors.md: {unlisted:?}"
    );
    let unused: Vec<&String> = listed
        .difference(&emitted)
        .filter(|code| !retired.contains(*code))
        .collect();
    assert!(
        unused.is_empty(),
        "in spec/errors.md, emitted nowhere (mark it retired): {unused:?}"
    );
}

/// Every code a runtime error carries has its kind in the runtime's one
/// registry (`rqc_runtime::error_codes`), which is in order (it is
/// searched by halves) and lists nothing the program does not emit. The
/// codes are those in the runtime's sources and those the library and the
/// CLI make runtime errors of.
#[test]
fn every_runtime_code_has_its_kind_in_the_registry() {
    use rqc_runtime::error_codes::{kind_of, ErrorKind, REGISTRY};
    let root = repo();
    let mut carried = BTreeSet::new();
    for file in rqc_tests::rust_files(&root.join("runtime/src")) {
        carried.extend(codes_in(&program_text(&file), b"\""));
    }
    for dir in ["src", "cli/src"] {
        for file in rqc_tests::rust_files(&root.join(dir)) {
            let text = program_text(&file);
            for (at, _) in text.match_indices("RuntimeError::new(") {
                let call: String = text[at..].chars().take(60).collect();
                carried.extend(codes_in(&call, b"\""));
            }
        }
    }
    assert!(carried.len() > 100, "the scan finds the codes: {carried:?}");
    let registered: Vec<&str> = REGISTRY.iter().map(|(code, _)| *code).collect();
    let mut sorted = registered.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        registered, sorted,
        "the registry is in order, each code once"
    );
    let missing: Vec<&String> = carried
        .iter()
        .filter(|c| !registered.contains(&c.as_str()))
        .collect();
    assert!(missing.is_empty(), "no kind in the registry: {missing:?}");
    let stale: Vec<&&str> = registered
        .iter()
        .filter(|c| !carried.contains(**c))
        .collect();
    assert!(stale.is_empty(), "registered, carried nowhere: {stale:?}");
    // The kinds the program's decisions read.
    assert_eq!(kind_of("E0540"), ErrorKind::Busy);
    assert_eq!(kind_of("E0595"), ErrorKind::Conflict);
    assert_eq!(kind_of("E0599"), ErrorKind::Bug);
    assert_eq!(kind_of("E0564"), ErrorKind::RequestLimit);
    assert!(kind_of("E0591").is_store_failure());
    assert!(!kind_of("E0504").is_store_failure());
}
