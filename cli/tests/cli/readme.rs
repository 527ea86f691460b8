//! The README's console blocks, run as written: each `$ rqc …` line runs (from the repository root, the tour's `shop.rq` and `data` in a fresh directory) and must print what the README shows below it.
//!
//! Output is stdout and stderr in the order they were written, as a
//! terminal shows them; trailing spaces are ignored. A `rqc repl` block runs with
//! `--echo`, its `rql> ` (and ` ..> `) lines piped in: the REPL prints each
//! prompt and line it reads as a terminal shows them typed, so the block is
//! compared whole, prompts and input included.

use super::repo;
use std::path::Path;
use std::process::{Command, Stdio};

struct Step {
    command: String,
    input: Vec<String>,
    expected: Vec<String>,
}

/// The steps of every ```console block.
fn console_steps(readme: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut inside = false;
    for line in readme.lines() {
        if line.starts_with("```console") {
            inside = true;
            continue;
        }
        if line.starts_with("```") {
            inside = false;
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_string(),
                input: Vec::new(),
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            let typed = line.strip_prefix("rql> ").or(line.strip_prefix(" ..> "));
            if let Some(typed) = typed {
                step.input.push(typed.to_string());
            }
            step.expected.push(line.to_string());
        }
    }
    steps
}

/// The tour's program: the first ```rql block.
fn tour_program(readme: &str) -> String {
    let start = readme.find("```rql\n").expect("the tour has a program") + "```rql\n".len();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end].to_string()
}

fn normalized(lines: &[String]) -> String {
    let mut lines: Vec<String> = lines.iter().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

fn run(step: &Step, dir: &Path) -> String {
    let shop = dir.join("shop.rq").display().to_string();
    let data = dir.join("data").display().to_string();
    let social = dir.join("social").display().to_string();
    let notes = dir.join("notes").display().to_string();
    let qa = dir.join("qa").display().to_string();
    // `RQC_NOW=… rqc …`: the clock fixed for the command, as a shell sets it.
    let (clock, command) = match step.command.strip_prefix("RQC_NOW=") {
        Some(rest) => {
            let (now, command) = rest.split_once(' ').expect("a command after RQC_NOW");
            (Some(now), command)
        }
        None => (None, step.command.as_str()),
    };
    let mut args: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(|word| match word {
            "shop.rq" => shop.clone(),
            "data" => data.clone(),
            "social" => social.clone(),
            "notes" => notes.clone(),
            "qa" => qa.clone(),
            other => other.to_string(),
        })
        .collect();
    // Piped input shown as typed (a pipe echoes nothing).
    if command.starts_with("rqc repl") {
        args.push("--echo".to_string());
    }
    let repl = command.starts_with("rqc repl");
    let mut command = Command::new(env!("CARGO_BIN_EXE_rqc"));
    if let Some(now) = clock {
        command.env("RQC_NOW", now);
    }
    command
        .args(&args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped());
    // Both streams into one pipe, in the order they were written, as a
    // terminal shows them; the REPL's greeting on stderr is no part of the
    // session shown.
    let (mut merged, writer) = std::io::pipe().unwrap();
    match repl {
        true => command.stdout(writer).stderr(Stdio::null()),
        false => command.stdout(writer.try_clone().unwrap()).stderr(writer),
    };
    let mut child = command.spawn().unwrap();
    drop(command);
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for line in &step.input {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut merged, &mut text).unwrap();
    child.wait().unwrap();
    // Paths as the README writes them: relative to the tour's directory.
    let text = text.replace(&format!("{}/", dir.display()), "");
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    normalized(&lines)
}

#[test]
fn every_console_block_of_the_readme_prints_what_it_shows() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shop.rq"), tour_program(&readme)).unwrap();
    let steps = console_steps(&readme);
    assert!(steps.len() >= 6, "the README's console blocks were found");
    let mut differences = Vec::new();
    for step in &steps {
        let actual = run(step, dir.path());
        let expected = normalized(&step.expected);
        if actual != expected {
            differences.push(format!(
                "$ {}\n--- the README shows:\n{expected}\n--- rqc prints:\n{actual}",
                step.command
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

/// stdlib/README.md lists every function the prelude defines, and every
/// built-in the checker knows.
#[test]
fn the_stdlib_readme_names_every_prelude_function_and_builtin() {
    let readme = std::fs::read_to_string(repo().join("stdlib/README.md")).unwrap();
    let prelude = std::fs::read_to_string(repo().join("stdlib/prelude.rq")).unwrap();
    for line in prelude.lines() {
        if let Some(rest) = line.strip_prefix("pub fn ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            assert!(
                readme.contains(&format!("`{name}(")),
                "{name} is not in stdlib/README.md"
            );
        }
    }
    let builtins = rqc_plan::Builtin::ALL
        .iter()
        .map(|b| b.name())
        .chain(rqc_compiler::syntax::ast::SCALAR_FUNCTIONS.iter().copied());
    for name in builtins {
        assert!(
            readme.contains(&format!("`{name}`")),
            "{name} is not in stdlib/README.md"
        );
    }
}

/// The set-up section says how to put `rqc` on `PATH` before the tour's
/// first block runs it by name.
#[test]
fn the_set_up_says_how_to_put_rqc_on_path_before_the_tour_uses_it() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let set_up = readme.find("## Set up").expect("a set-up section");
    let tour = readme.find("## A short tour").expect("a tour");
    let first_use = readme[tour..].find("$ rqc ").map(|at| tour + at).unwrap();
    let said = &readme[set_up..tour];
    for how in [
        "cargo install --path cli",
        "PATH",
        "scripts/rqc-path release",
    ] {
        assert!(said.contains(how), "the set-up does not say `{how}`");
    }
    assert!(set_up < first_use);
}
