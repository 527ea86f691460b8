//! The editor's view of the predicates over indexes: hover over an `in`
//! access, a `starts_with` range and a union shows the whole expression's
//! type and bound (not one lookup's), and completion offers `starts_with`.

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::{completions, hover};

const SOURCE: &str = "\
table User {
  id: Int key
  handle: String unique
}
query users(ids: [Int; <= 5]) = User[id in ids]
query handles(p: String) = User.handle[starts_with(handle, p)] |> take(10)
query either(a: Int, b: Int) = User[a] || User[b]
query typing(p: String) = User[1] |> map(u => sta)
";

fn hover_at(analysis: &Analysis, needle: &str) -> String {
    let offset = SOURCE.find(needle).expect("the needle is in the source");
    hover(analysis, "p.rq", offset).unwrap_or_else(|| panic!("no hover at {needle}"))
}

#[test]
fn hover_shows_the_whole_predicate_and_its_bound() {
    let analysis = Analysis::new(&[("p.rq".to_string(), SOURCE.to_string())]);
    let users = hover_at(&analysis, "[id in ids]");
    assert!(users.contains("[User; ≤ 5]"), "{users}");
    assert!(users.contains("round trips ≤ 1"), "{users}");
    let handles = hover_at(&analysis, "[starts_with(handle");
    assert!(handles.contains("stream User"), "{handles}");
    let either = hover_at(&analysis, "|| User[b]");
    assert!(either.contains("[User; ≤ 2]"), "{either}");
}

#[test]
fn completion_offers_starts_with() {
    let analysis = Analysis::new(&[("p.rq".to_string(), SOURCE.to_string())]);
    let offset = SOURCE.find("sta)").unwrap() + 3;
    let labels: Vec<String> = completions(&analysis, "p.rq", SOURCE, offset)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert!(labels.iter().any(|l| l == "starts_with"), "{labels:?}");
}

/// Inside an access's brackets completion offers the columns of the index
/// (or key) it reads, in order, before anything else: for a range, a
/// tuple range or `in`.
#[test]
fn completion_in_an_access_offers_its_index_columns() {
    let source = "\
table Post {
  id: Int key
  at: Int
  author: Int
  index by_time (at desc, id desc)
}
query page(t: Int, i: Int) = Post.by_time[(at, ";
    let analysis = Analysis::new(&[("q.rq".to_string(), source.to_string())]);
    let labels: Vec<String> = completions(&analysis, "q.rq", source, source.len())
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(
        labels[..2],
        ["at".to_string(), "id".to_string()],
        "{labels:?}"
    );
    // By key: the key's column; outside brackets, no column comes first.
    let keyed = "table Post { id: Int key  at: Int }\nquery p(x: Int) = Post[i";
    let analysis = Analysis::new(&[("k.rq".to_string(), keyed.to_string())]);
    let first = completions(&analysis, "k.rq", keyed, keyed.len())
        .into_iter()
        .next()
        .map(|c| c.label);
    assert_eq!(first.as_deref(), Some("id"));
    let outside = "table Post { id: Int key  at: Int }\nquery p(x: Int) = Post[x] |> map(p => i";
    let analysis = Analysis::new(&[("o.rq".to_string(), outside.to_string())]);
    let first = completions(&analysis, "o.rq", outside, outside.len())
        .into_iter()
        .next()
        .map(|c| c.label);
    assert_ne!(first.as_deref(), Some("id"));
}
