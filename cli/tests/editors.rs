//! The editor integrations as users install them: Neovim with the documented setup, and the VS Code extension built, packaged and its grammar tested.
//!
//! Both need programs from outside Cargo: `nvim` (Debian's neovim, 0.7.2)
//! and `npm` (Node.js). `scripts/test`, the README's test command,
//! installs Neovim; a missing program fails the test with what to install.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn needs(program: &str, install: &str) {
    let found = Command::new(program).arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "`{program}` is needed by this test: {install} (scripts/test does)"
    );
}

#[test]
fn neovim_attaches_one_client_per_workspace_through_the_documented_setup() {
    needs("nvim", "apt-get install neovim");
    let work = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("examples/social/social.rq"),
        work.path().join("social.rq"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("editors/nvim/feed.rq"),
        work.path().join("feed.rq"),
    )
    .unwrap();
    let rqc = Path::new(env!("CARGO_BIN_EXE_rqc"));
    let path = format!(
        "{}:{}",
        rqc.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("timeout")
        .args([
            "60",
            "nvim",
            "--headless",
            "-i",
            "NONE",
            "-u",
            "editors/nvim/rqc.lua",
        ])
        .args(["-c", "luafile editors/nvim/check.lua"])
        .current_dir(repo())
        .env("PATH", path)
        .env("RQC_CHECK_DIR", work.path())
        .output()
        .expect("nvim runs");
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let has = |line: &str| lines.contains(&line);
    assert!(has("filetype rql"), "`.rq` is RQL, not sparql:\n{out}");
    assert!(has("diagnostic E0301 at line 4"), "{out}");
    assert!(has("clients 1"), "one server for both files:\n{out}");
    assert!(
        out.contains("hover ") && out.contains("seeks ≤ 1, rows ≤ n = 100"),
        "{out}"
    );
    assert!(has("definition social.rq"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("completion ") && l.split(' ').any(|w| w == "by_author")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("action Add `bound author")),
        "the quick fix is offered:\n{out}"
    );
    assert!(has("OK"), "{out}");
}

#[test]
fn the_vscode_extension_builds_packages_and_highlights() {
    needs("npm", "install Node.js and npm");
    let work = tempfile::tempdir().unwrap();
    let extension = work.path().join("vscode");
    std::fs::create_dir(&extension).unwrap();
    let source = repo().join("editors/vscode");
    for entry in [
        "package.json",
        "package-lock.json",
        "extension.js",
        "language-configuration.json",
        ".vscodeignore",
    ] {
        std::fs::copy(source.join(entry), extension.join(entry)).unwrap();
    }
    for dir in ["syntaxes", "tests"] {
        std::fs::create_dir(extension.join(dir)).unwrap();
        for file in std::fs::read_dir(source.join(dir)).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, extension.join(dir).join(file.file_name().unwrap())).unwrap();
        }
    }
    let run = |args: &[&str]| {
        let output = Command::new("npm")
            .args(args)
            .current_dir(&extension)
            .output()
            .expect("npm runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "npm {args:?}:\n{text}");
        text
    };
    run(&["ci", "--no-audit", "--no-fund"]);
    let grammar = run(&[
        "exec",
        "--",
        "vscode-tmgrammar-test",
        "-g",
        "syntaxes/rql.tmLanguage.json",
        "tests/*.rq",
    ]);
    assert!(grammar.contains("syntax.rq run successfuly"), "{grammar}");
    let packed = run(&[
        "exec",
        "--",
        "vsce",
        "package",
        "--allow-missing-repository",
        "--skip-license",
        "-o",
        "rql.vsix",
    ]);
    assert!(!packed.contains("Neither a .vscodeignore"), "{packed}");
    // What ships: the extension's own four files, and the client's
    // runtime modules without types, maps, documents or browser builds.
    let listed = run(&["exec", "--", "vsce", "ls"]);
    let files: Vec<&str> = listed.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut own: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| !f.starts_with("node_modules/"))
        .collect();
    own.sort_unstable();
    assert_eq!(
        own,
        [
            "extension.js",
            "language-configuration.json",
            "package.json",
            "syntaxes/rql.tmLanguage.json"
        ],
        "{listed}"
    );
    for left_out in [".d.ts", ".map", ".md", "/lib/browser/", "/lib/esm/"] {
        assert!(
            !files.iter().any(|f| f.contains(left_out)),
            "{left_out} ships:\n{listed}"
        );
    }
    assert!(files.len() < 200, "{} files ship:\n{listed}", files.len());
    // Those files alone hold everything the client loads: copied apart,
    // the extension and `vscode-languageclient/node` load in Node (with
    // a stand-in for the `vscode` module VS Code provides).
    let shipped = work.path().join("shipped");
    for file in &files {
        let target = shipped.join(file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(extension.join(file), target).unwrap();
    }
    let stub = work.path().join("stub/vscode");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(
        stub.join("index.js"),
        "module.exports = new Proxy({}, { get: () => new Proxy(function () {}, { get: () => function () {} }) });\n",
    )
    .unwrap();
    let loaded = Command::new("node")
        .args([
            "-e",
            "require('./node_modules/vscode-languageclient/node'); require('./extension.js'); console.log('loaded')",
        ])
        .current_dir(&shipped)
        .env("NODE_PATH", work.path().join("stub"))
        .output()
        .expect("node runs");
    assert_eq!(
        String::from_utf8_lossy(&loaded.stdout).trim(),
        "loaded",
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    let vsix = std::fs::read(extension.join("rql.vsix")).unwrap();
    assert!(vsix.starts_with(b"PK"), "a .vsix is a zip archive");
    let listing = String::from_utf8_lossy(&vsix);
    for inside in [
        "extension/syntaxes/rql.tmLanguage.json",
        "extension/node_modules/vscode-languageclient",
    ] {
        assert!(listing.contains(inside), "the package holds {inside}");
    }
}
