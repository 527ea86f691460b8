//! The editor features on a tuple range: a column named in `(at, id) < (t, i)` goes to its declaration, and hovering the access shows its bound.

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::{definition, hover};

const SOURCE: &str = "module m\n\
table Post {\n  id: Int key\n  at: Int\n  index by_time (at desc, id desc)\n}\n\
query next(t: Int, i: Int) = Post.by_time[(at, id) < (t, i)] |> take(20)\n";

#[test]
fn a_tuple_column_goes_to_its_declaration_and_the_access_hovers_with_its_cost() {
    let analysis = Analysis::new(&[("m.rq".to_string(), SOURCE.to_string())]);
    assert!(
        analysis.diagnostics().is_empty(),
        "{:?}",
        analysis.diagnostics()
    );
    let tuple = SOURCE.find("(at, id)").unwrap();
    for (column, offset) in [("at", tuple + 1), ("id", tuple + 5)] {
        let (file, span) = definition(&analysis, "m.rq", offset).expect("a definition");
        assert_eq!(file, "m.rq");
        let declared = &SOURCE[span.start as usize..span.end as usize];
        assert!(declared.starts_with(column), "{column}: {declared}");
        assert!(
            SOURCE[..span.start as usize].contains("table Post"),
            "{column} goes to the table's column"
        );
    }
    let value = SOURCE.find("(t, i)").unwrap() + 1;
    let shown = hover(&analysis, "m.rq", value).expect("a hover");
    assert!(shown.contains("`Int`"), "{shown}");
    let take = SOURCE.find("take(20)").unwrap();
    let shown = hover(&analysis, "m.rq", take).expect("a hover");
    assert!(shown.contains("seeks ≤ 1, rows ≤ 20"), "{shown}");
}
