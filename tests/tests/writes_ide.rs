//! The editor's view of the everyday writes: `upsert` and `as` complete as keywords that say what they do, a write's braces offer the written table's columns, `as r` offers `r` and `r.` the row's columns, and hover shows a write's bound.

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::{completions, hover};

/// The everyday writes in the editor: `upsert` and `as` complete as
/// keywords that say what they do, a write's braces offer the written
/// table's columns, `as r` offers `r`, and `r.` the row's columns; hover
/// on an upsert and on a stepped update shows its bound.
#[test]
fn the_writes_complete_and_hover() {
    let source = "\
table Item {
  id: Int key
  name: String
  price: Int
  stock: Int = 0
}
mutation put(id: Int) = upsert Item { id, name: \"\", price: 1 }
mutation sell(id: Int) = update Item[id] as it { stock: it.stock - 1, price += 1 }
mutation typing(id: Int) = ups";
    let analysis = Analysis::new(&[("w.rq".to_string(), source.to_string())]);
    let at_end = completions(&analysis, "w.rq", source, source.len());
    let upsert = at_end.iter().find(|c| c.label == "upsert").expect("upsert");
    assert!(upsert.detail.contains("inserts the row"), "{upsert:?}");
    // Inside an upsert's braces, the table's columns come first.
    let open = source.find("{ id, name").unwrap() + 2;
    let first: Vec<String> = completions(&analysis, "w.rq", source, open)
        .into_iter()
        .take(4)
        .map(|c| c.label)
        .collect();
    assert_eq!(first, ["id", "name", "price", "stock"], "{first:?}");
    // In an update's changes: the columns, and the row's name.
    let changes = source.find("{ stock: it").unwrap() + 2;
    let offered: Vec<String> = completions(&analysis, "w.rq", source, changes)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(
        offered[..4],
        ["id", "name", "price", "stock"],
        "{offered:?}"
    );
    assert!(offered.iter().any(|l| l == "it"), "{offered:?}");
    let keyword = completions(&analysis, "w.rq", source, source.find("as it").unwrap() + 1);
    assert!(keyword
        .iter()
        .any(|c| c.label == "as" && c.detail.contains("names the row")));
    // `it.` offers the row's columns.
    let dot = source.find("it.stock").unwrap() + 3;
    let fields: Vec<String> = completions(&analysis, "w.rq", source, dot)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(fields, ["id", "name", "price", "stock"], "{fields:?}");
    let put = hover_at_in(&analysis, source, "upsert Item");
    assert!(put.contains("seeks ≤ 1"), "{put}");
    let sell = hover_at_in(&analysis, source, "update Item");
    assert!(sell.contains("seeks ≤ 2"), "{sell}");
}

fn hover_at_in(analysis: &Analysis, source: &str, needle: &str) -> String {
    let offset = source.find(needle).expect("the needle is in the source");
    hover(analysis, "w.rq", offset).unwrap_or_else(|| panic!("no hover at {needle}"))
}

/// Generated keys and the clock in the editor: `auto` and `now` complete
/// with what they do, and hover on an insert into a `key auto` table shows
/// its bound, the counter's seek included.
#[test]
fn generated_keys_and_the_clock_complete_and_hover() {
    let source = "\
table Note {
  id: Int key auto
  at: Int
  likes: Int = 0
}
mutation note() = insert Note { at: now() }
mutation typing() = n";
    let analysis = Analysis::new(&[("w.rq".to_string(), source.to_string())]);
    let at_end = completions(&analysis, "w.rq", source, source.len());
    let now = at_end.iter().find(|c| c.label == "now").expect("now");
    assert!(now.detail.contains("mutations only"), "{now:?}");
    let typing_auto = format!("{}a", &source[..source.len() - 1]);
    let auto = completions(&analysis, "w.rq", &typing_auto, typing_auto.len())
        .into_iter()
        .find(|c| c.label == "auto")
        .expect("auto");
    assert!(auto.detail.contains("generates the key"), "{auto:?}");
    // The key check and the counter: 2 seeks.
    let note = hover_at_in(&analysis, source, "insert Note");
    assert!(note.contains("seeks ≤ 2"), "{note}");
}
