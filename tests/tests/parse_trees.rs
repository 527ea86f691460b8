//! Parse-tree snapshots of every design example, and the parse → print → parse round trip.

use rqc_compiler::syntax::parse;
use rqc_compiler::syntax::printer::print_module;
use rqc_compiler::syntax::tree::dump_module;
use rqc_tests::{relative, rq_files};

fn parse_clean(name: &str, text: &str) -> rqc_compiler::syntax::ast::Module {
    let (module, diagnostics) = parse(name, text);
    assert!(
        diagnostics.is_empty(),
        "{name} has syntax errors: {diagnostics:#?}"
    );
    module
}

#[test]
fn every_design_example_parses_to_the_reviewed_tree() {
    let files = rq_files("tests/design");
    assert!(files.len() >= 4, "the design examples are missing");
    for path in files {
        let name = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let module = parse_clean(&name, &text);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(format!("design_{stem}"), dump_module(&module, true), &name);
    }
}

/// Every program in the repository prints to source that parses back to
/// the same tree, and printing is a fixed point.
#[test]
fn parse_print_parse_round_trips_over_every_example() {
    let mut files = rq_files("tests/design");
    files.extend(rq_files("examples"));
    files.extend(rq_files("tests/corpus"));
    files.extend(rq_files("stdlib"));
    let mut checked = 0;
    for path in files {
        let name = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let (module, diagnostics) = parse(&name, &text);
        if !diagnostics.is_empty() {
            // Files that are meant to fail to parse carry no round trip.
            continue;
        }
        let printed = print_module(&module);
        let reparsed = parse_clean(&format!("{name} (printed)"), &printed);
        assert_eq!(
            dump_module(&module, false),
            dump_module(&reparsed, false),
            "{name}: the printed form parses to another tree:\n{printed}"
        );
        assert_eq!(
            printed,
            print_module(&reparsed),
            "{name}: printing is not a fixed point"
        );
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} files were round-tripped");
}

/// Operators print with exactly the parentheses their precedence needs.
#[test]
fn printing_keeps_precedence() {
    let cases = [
        ("query q() = (1 + 2) * 3", "(1 + 2) * 3"),
        ("query q() = 1 + 2 * 3", "1 + 2 * 3"),
        ("query q() = 1 - (2 - 3)", "1 - (2 - 3)"),
        (
            "query q(a: Bool, b: Bool, c: Bool) = (a || b) && c",
            "(a || b) && c",
        ),
        ("query q() = -(1 + 2)", "-(1 + 2)"),
        (
            "query q() = xs |> map(x => x + 1) |> take(3)",
            "xs |> map(x => x + 1) |> take(3)",
        ),
        ("query q() = (xs |> count()) > 3", "xs |> count() > 3"),
        ("query q() = f(x => y => x + y)", "f(x => y => x + y)"),
        ("query q() = (x => x)(1)", "(x => x)(1)"),
        (
            "query q() = if a { 1 } else if b { 2 } else { 3 }",
            "if a { 1 } else if b { 2 } else { 3 }",
        ),
        ("query q() = { let x = 1; x + 1 }", "{ let x = 1; x + 1 }"),
        (
            "mutation q(k: Int) = update T[k] as r { a: r.a * 2, b += 1, c -= k - 1 }",
            "update T[k] as r { a: r.a * 2, b += 1, c -= k - 1 }",
        ),
        (
            "mutation q(k: Int) = update (T[k] |> first()) { b += 1 }",
            "update (T[k] |> first()) { b += 1 }",
        ),
        (
            "mutation q(k: Int) = upsert T { k, a: -1 }",
            "upsert T { k, a: -1 }",
        ),
    ];
    for (source, expected) in cases {
        let module = parse_clean("t.rq", source);
        let printed = print_module(&module);
        let body = printed.lines().nth(1).unwrap().trim();
        assert_eq!(body, expected, "from {source}");
    }
}
