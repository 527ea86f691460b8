//! A call an `if` makes twice is computed once by the checker (`repeated_calls.rs`); to the editor each occurrence is still the call written there: go-to-definition from the second reaches the function and the parameter, and hover shows the call's narrowed type.

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::{definition, hover};

const SOURCE: &str = "fn limit_of(n: Int) -> Int = n * 2 + 1
query q(n: Int) = if limit_of(n) > 50 { 50 } else { limit_of(n) }
";

#[test]
fn the_second_occurrence_of_a_shared_call_leads_to_what_it_names() {
    let analysis = Analysis::new(&[("m.rq".to_string(), SOURCE.to_string())]);
    let second = SOURCE.rfind("limit_of(n)").unwrap();
    let (file, span) = definition(&analysis, "m.rq", second + 2).expect("the function");
    assert_eq!(file, "m.rq");
    assert_eq!(span.start as usize, SOURCE.find("limit_of").unwrap());
    let argument = second + "limit_of(".len();
    let (_, span) = definition(&analysis, "m.rq", argument).expect("the parameter");
    let parameter = SOURCE.find("query q(").unwrap() + "query q(".len();
    assert_eq!(span.start as usize, parameter);
    let shown = hover(&analysis, "m.rq", second + "limit_of(n".len()).expect("a hover");
    assert!(shown.contains("Int"), "hover on the second call: {shown}");
}
