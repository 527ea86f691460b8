//! A definition named as a value (`map(inc)`) is, to the editor, the definition: go-to-definition jumps to it and hover shows its signature, as on a call.

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::{definition, hover};

const SOURCE: &str = "fn inc(x: Int) -> Int = x + 1
fn app(f: T -> U, x: T) -> U = f(x)
query q(xs: [Int; <= 5]) = xs |> map(inc)
query r() = app(inc, 3)
";

#[test]
fn a_definition_named_as_a_value_leads_to_the_definition() {
    let analysis = Analysis::new(&[("m.rq".to_string(), SOURCE.to_string())]);
    let declared = SOURCE.find("inc").unwrap();
    for (line, at) in [("map(inc)", 4), ("app(inc, 3)", 4)] {
        let offset = SOURCE.find(line).unwrap() + at + 1;
        let (file, span) = definition(&analysis, "m.rq", offset).expect("a definition");
        assert_eq!(file, "m.rq");
        assert_eq!(span.start as usize, declared, "from `{line}`");
        let shown = hover(&analysis, "m.rq", offset).expect("a hover");
        assert!(shown.contains("inc(x: Int)"), "hover on `{line}`: {shown}");
    }
}
