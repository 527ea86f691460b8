//! The library is a library: embedding `rqc` compiles none of the front ends' crates (clap, rustyline, lsp-server, lsp-types) nor miette's graphical handler.
//!
//! Asks Cargo itself (`cargo tree`, offline, with the committed lock file)
//! for what building each package compiles: normal and build dependencies,
//! with the features they are built with.

use std::collections::BTreeSet;
use std::process::Command;

/// The crates only the `rqc` binary's front ends may use.
const FRONT_END_CRATES: [&str; 4] = ["clap", "rustyline", "lsp-server", "lsp-types"];

/// What building `package` compiles: `name` for each crate, and
/// `name/feature` for each feature it is built with.
fn compiled(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = rqc_tests::repo_root().join("Cargo.toml");
    let output = Command::new(cargo)
        .args(["tree", "--offline", "--locked", "--manifest-path"])
        .arg(&manifest)
        .args(["-p", package, "-e", "normal,build,features"])
        .args(["--prefix", "none"])
        .output()
        .expect("cargo runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // `name vX.Y.Z (…)` for a crate, `name feature "f"` for a feature.
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            Some(match (words.next(), words.next()) {
                (Some("feature"), Some(feature)) => {
                    format!("{name}/{}", feature.trim_matches('"'))
                }
                _ => name.to_string(),
            })
        })
        .collect()
}

#[test]
fn embedding_rqc_compiles_no_front_end_crate() {
    let library = compiled("rqc");
    assert!(
        library.contains("rqc-runtime") && library.contains("miette"),
        "the listing holds the library's own dependencies: {library:?}"
    );
    let found: Vec<&str> = FRONT_END_CRATES
        .into_iter()
        .filter(|name| library.contains(*name))
        .collect();
    assert!(
        found.is_empty(),
        "the rqc library depends on {found:?}: they belong to rqc-cli (cli/Cargo.toml)"
    );
    assert!(
        !library.contains("miette/fancy"),
        "the rqc library builds miette's `fancy` feature: a graphical handler is the application's choice"
    );
}

/// The check above can fail: the binary's package does compile them all.
#[test]
fn the_binary_compiles_every_front_end_crate() {
    let binary = compiled("rqc-cli");
    for name in FRONT_END_CRATES {
        assert!(binary.contains(name), "rqc-cli without {name}: {binary:?}");
    }
}
