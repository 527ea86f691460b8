//! The scripts run the `rqc` that cargo built, wherever cargo put it: `CARGO_TARGET_DIR`, `CARGO_BUILD_TARGET_DIR` (or a config's `build.target-dir`), or the default.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A stand-in for cargo that records its arguments and answers as cargo
/// does with `--message-format=json`: one message per artifact, a
/// library's `executable` null and the binary's its path. (The real cargo
/// would rebuild `rqc` here with other features than the tests', and
/// replace the binary the other tests are running.)
fn fake_cargo(dir: &Path, binary: &Path) {
    let script = format!(
        r#"#!/usr/bin/env bash
echo "$@" > "{dir}/arguments"
echo "   Compiling rqc-cli v0.1.0 (progress)" >&2
echo '{{"reason":"compiler-artifact","package_id":"rqc-compiler","executable":null,"fresh":true}}'
echo '{{"reason":"compiler-artifact","package_id":"rqc-cli","executable":"{binary}","fresh":true}}'
echo '{{"reason":"build-finished","success":true}}'
"#,
        dir = dir.display(),
        binary = binary.display()
    );
    let cargo = dir.join("cargo");
    std::fs::write(&cargo, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn rqc_path_prints_the_binary_cargo_names() {
    let work = tempfile::tempdir().unwrap();
    // Somewhere no `target/` default would find.
    let binary = work.path().join("elsewhere/release/rqc");
    std::fs::create_dir_all(binary.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_rqc"), &binary).unwrap();
    fake_cargo(work.path(), &binary);
    let path = format!(
        "{}:{}",
        work.path().display(),
        std::env::var("PATH").unwrap()
    );
    let output = Command::new("bash")
        .arg(repo().join("scripts/rqc-path"))
        .arg("release")
        .env("PATH", path)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        binary.to_str().unwrap()
    );
    // The build's progress reaches the user (a first build takes minutes).
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(
        progress.contains("building rqc")
            && progress.contains("Compiling rqc-cli v0.1.0 (progress)"),
        "{progress}"
    );
    let arguments = std::fs::read_to_string(work.path().join("arguments")).unwrap();
    assert!(!arguments.contains("--quiet"), "cargo {arguments} is quiet");
    for expected in [
        "build",
        "--release",
        "-p rqc-cli",
        "--bin rqc",
        "--message-format=json",
    ] {
        assert!(
            arguments.contains(expected),
            "cargo {arguments} has {expected}"
        );
    }
}

#[test]
fn rqc_path_refuses_an_unknown_profile() {
    let output = Command::new("bash")
        .arg(repo().join("scripts/rqc-path"))
        .arg("fast")
        .output()
        .expect("bash runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("usage"));
}

#[test]
fn every_script_runs_rqc_through_rqc_path() {
    // A script that builds its own path (`target/release/rqc`) breaks when
    // the target directory is elsewhere.
    for script in [
        "demo",
        "load-memory",
        "load-vs-sqlite",
        "disk-full",
        "nvim-check",
    ] {
        let text = std::fs::read_to_string(repo().join("scripts").join(script)).unwrap();
        assert!(
            text.contains("scripts/rqc-path"),
            "{script} uses scripts/rqc-path"
        );
        assert!(
            !text.contains("target}/"),
            "{script} builds no path of its own"
        );
    }
}
