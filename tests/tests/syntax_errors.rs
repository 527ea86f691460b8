//! Syntax-error diagnostics: each file in tests/syntax-errors states the codes
//! it must produce; the rendered messages are snapshots, reviewed like code.

use rqc_compiler::diagnostics::{render, RenderOptions, Sources};
use rqc_compiler::syntax::parse;
use rqc_tests::{expected_codes, relative, rq_files};

#[test]
fn each_broken_file_reports_its_codes_with_span_and_help() {
    let files = rq_files("tests/syntax-errors");
    assert!(
        files.len() >= 15,
        "at least 15 distinct syntax errors are covered"
    );
    for path in files {
        let name = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let expected =
            expected_codes(&text).unwrap_or_else(|| panic!("{name} has no `// expect:` line"));
        let (_, diagnostics) = parse(&name, &text);
        let codes: Vec<String> = diagnostics.iter().map(|d| d.code.clone()).collect();
        assert_eq!(codes, expected, "{name}: {diagnostics:#?}");
        for diagnostic in &diagnostics {
            assert!(
                !diagnostic.help.is_empty(),
                "{name}: {} has no help line",
                diagnostic.code
            );
            assert!(
                diagnostic.primary.span.end as usize <= text.len(),
                "{name}: span past the end"
            );
        }
        let mut sources = Sources::new();
        sources.add(name.clone(), text.clone());
        let rendered: String = diagnostics
            .iter()
            .map(|d| render(d, &sources, RenderOptions { color: false }))
            .collect();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(format!("syntax_{stem}"), rendered, &text);
    }
}

/// A definition the parser drops whole (its syntax error inside a lambda
/// inside a call) is not charged to the one before it: that one's verdict
/// stays its own (adversary round 2: it was rejected with the dropped
/// one's E0101), and the one after it is checked as well.
#[test]
fn a_dropped_definition_is_not_charged_to_the_one_before_it() {
    let source = "table Item { id: Int key  name: String }
query first(id: Int) = Item[id]
query broken(n: Int) = [n] |> map(x => x |> count() + 1)
query after(id: Int) = Item[id]
";
    let compilation = rqc_compiler::compile(&[("app.rq".to_string(), source.to_string())]);
    let codes: Vec<&str> = compilation
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["E0101"]);
    let verdict = |name: &str| {
        compilation
            .checked
            .verdict(name)
            .unwrap_or_else(|| panic!("no verdict for `{name}`"))
            .clone()
    };
    for name in ["first", "after"] {
        let v = verdict(name);
        assert!(v.accepted, "`{name}`: {:?}", v.cause);
    }
    assert!(compilation
        .checked
        .verdicts
        .iter()
        .all(|v| v.name != "broken"));
    // Also when the dropped one starts on the line of the one before it
    // (the keyword of a string or a comment starts nothing).
    let same_line = "query first() = \"query\" // fn
query second() = 1 query )
query third() = 2
";
    let compilation = rqc_compiler::compile(&[("app.rq".to_string(), same_line.to_string())]);
    for v in &compilation.checked.verdicts {
        assert!(v.accepted, "`{}`: {:?}", v.name, v.cause);
    }
    let names: Vec<&str> = compilation
        .checked
        .verdicts
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["first", "second", "third"]);
}
