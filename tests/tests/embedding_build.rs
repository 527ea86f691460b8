//! A new cargo project that depends on rqc builds and runs from a fresh resolution: no lock file of its own, outside this repository's `.cargo/config.toml`.
//!
//! An embedder's first `cargo build` resolves every dependency anew, so a
//! crate whose newer patch release breaks rqc's build (salsa-macro-rules
//! 0.28.7 did) breaks every new embedder while this workspace, with its
//! lock file, stays green. The project is made in a temporary directory
//! with a `[workspace]` of its own, resolved online as `cargo new` would,
//! and built into a target directory beside the workspace's own (so a
//! second run reuses what the first compiled). The `etcd` variant builds
//! with no `protoc` on `PATH`, following the one line the README's
//! embedding section gives for that case.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The program the embedder's `main` runs: open a database, install a
/// program, write a row, read it back, print it.
const MAIN: &str = r#"
fn main() -> Result<(), rqc::Error> {
    let dir = std::env::args().nth(1).expect("a database directory");
    let mut db = rqc::Database::open(&dir)?;
    let installed = db.install_source(
        "app.rq",
        "table Note { id: Int key  text: String }\n\
         pub mutation add(id: Int, text: String) = insert Note { id: id, text: text }\n\
         pub query note(id: Int) = Note[id]\n",
    )?;
    if !installed.is_clean() {
        return Err(installed.into_error());
    }
    db.prepare("add")?.run(&[7.into(), "hello".into()])?;
    let found = db.prepare("note")?.run(&[7.into()])?;
    println!("{}", found.value);
    Ok(())
}
"#;

/// The target directory the embedder's builds share: beside the
/// workspace's own, never inside it (that one is locked while tests run).
fn target_dir() -> PathBuf {
    let workspace_target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| rqc_tests::repo_root().join("target"));
    let workspace_target = if workspace_target.is_relative() {
        rqc_tests::repo_root().join(workspace_target)
    } else {
        workspace_target
    };
    workspace_target.join("embedding-build")
}

/// `PATH` without any directory that holds a `protoc`.
fn path_without_protoc() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("protoc").exists())
        .collect();
    std::env::join_paths(kept).expect("PATH entries join again")
}

/// Writes a fresh project depending on rqc with `features`, builds it
/// and runs it on a new database; returns the run's output.
fn build_and_run(features: &str, extra_env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let project = tempfile::tempdir().expect("a temporary directory");
    let root = rqc_tests::repo_root();
    let manifest = format!(
        "[package]\nname = \"embedder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nrqc = {{ path = {root:?}{features} }}\n\n\
         [workspace]\n",
        root = root.display().to_string(),
    );
    std::fs::write(project.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(project.path().join("src")).unwrap();
    std::fs::write(project.path().join("src/main.rs"), MAIN).unwrap();
    assert!(
        !project.path().join("Cargo.lock").exists(),
        "the project starts with no lock file"
    );

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(project.path())
        .args(["build", "--quiet"])
        .env("CARGO_TARGET_DIR", target_dir());
    // The outer `cargo test` describes its own build in these; the
    // embedder's build is a new one.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if (name.starts_with("CARGO_") && name != "CARGO_HOME")
            || name.starts_with("__CARGO")
            || name.starts_with("RUSTC")
            || name == "RUSTFLAGS"
            || name == "RUSTDOCFLAGS"
        {
            build.env_remove(name.as_ref());
        }
    }
    build.env("CARGO_TARGET_DIR", target_dir());
    // No debug info and no incremental cache: the embedder's build is
    // checked, never debugged, and CI's disk is shared with the
    // workspace's own test build.
    build.env("CARGO_PROFILE_DEV_DEBUG", "false");
    build.env("CARGO_INCREMENTAL", "0");
    for (name, value) in extra_env {
        build.env(name, value);
    }
    let built = build.output().expect("cargo runs");
    assert!(
        built.status.success(),
        "the embedder's project does not build ({features:?}):\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let lock = std::fs::read_to_string(project.path().join("Cargo.lock")).unwrap();
    assert!(
        lock.contains("name = \"salsa-macro-rules\"\nversion = \"0.28.5\""),
        "the fresh resolution keeps the salsa macros rqc builds with"
    );

    let binary = target_dir().join("debug").join("embedder");
    let database = tempfile::tempdir().unwrap();
    Command::new(binary)
        .arg(database.path())
        .output()
        .expect("the embedder runs")
}

fn assert_ran(output: &Output) {
    assert!(
        output.status.success(),
        "the embedder failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    assert_eq!(printed.trim(), r#"{"id":7,"text":"hello"}"#);
}

#[test]
fn a_new_project_builds_and_runs_rqc_from_a_fresh_resolution() {
    assert_ran(&build_and_run("", &[]));
    // With the etcd feature, on a machine with no protoc: the README's line.
    let protoc = rqc_tests::repo_root().join("scripts/protoc");
    assert!(Path::new(&protoc).exists());
    assert_ran(&build_and_run(
        ", features = [\"etcd\"]",
        &[
            ("PATH", &path_without_protoc()),
            ("PROTOC", protoc.as_os_str()),
        ],
    ));
}
