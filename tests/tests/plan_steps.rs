//! The plan verifier holds a plan's steps in memory (spec/cost.md §2, "Steps") as the checker does: an edited plan whose list literal grew (8192 copies), so that a pairwise walk takes far more steps than its reads allow, or whose string parameter lost its length bound under a `length` at each of 2^20 elements, is refused with E0634, and the database and the honest program are as before.

use rqc::{Database, OpenOptions, Value};
use serde_json::{json, Value as Json};

const PAIRS: &str = "
module pairs

table Unused { id: Int key }

// Two copies of `x`, each compared with each: 2 · 2 comparisons.
query pairs(x: Int) = {
  let a0 = [x];
  let a1 = [a0, a0] |> flatten();
  a1 |> map(v => a1 |> filter(w => w == v) |> count()) |> sum()
}

// A list doubled and flattened ten times: 2^10 values, walked whole.
query chain(x: Int) = {
  let c0 = [x];
  let c1 = [c0, c0] |> flatten();
  let c2 = [c1, c1] |> flatten();
  let c3 = [c2, c2] |> flatten();
  let c4 = [c3, c3] |> flatten();
  let c5 = [c4, c4] |> flatten();
  let c6 = [c5, c5] |> flatten();
  let c7 = [c6, c6] |> flatten();
  let c8 = [c7, c7] |> flatten();
  let c9 = [c8, c8] |> flatten();
  let c10 = [c9, c9] |> flatten();
  [c10] |> count()
}

// A string constant.
query greeting() = length(\"abc\")

// A string's length and case at each of 2^10 elements: short strings.
query lengths(x: Int, t: String <= 100) = {
  let c0 = [x];
  let c1 = [c0, c0] |> flatten();
  let c2 = [c1, c1] |> flatten();
  let c3 = [c2, c2] |> flatten();
  let c4 = [c3, c3] |> flatten();
  let c5 = [c4, c4] |> flatten();
  let c6 = [c5, c5] |> flatten();
  let c7 = [c6, c6] |> flatten();
  let c8 = [c7, c7] |> flatten();
  let c9 = [c8, c8] |> flatten();
  let c10 = [c9, c9] |> flatten();
  c10 |> map(v => length(upper(t))) |> sum()
}
";

/// The honest program as its plan file holds it.
fn honest() -> Json {
    serde_json::to_value(rqc_tests::accepted(PAIRS)).unwrap()
}

/// Numbers every node of `value` in pre-order, from `next`.
fn renumber(value: &mut Json, next: &mut u64) {
    match value {
        Json::Object(map) => {
            if map.contains_key("id") && map.contains_key("op") {
                map.insert("id".into(), json!(*next));
                *next += 1;
            }
            for (key, child) in map.iter_mut() {
                if key != "id" {
                    renumber(child, next);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(|item| renumber(item, next)),
        _ => {}
    }
}

use rqc_tests::plan_entry as entry;

/// Every node whose op is a `List` of `Var`s made `copies` long.
fn widen_literals(value: &mut Json, copies: usize) {
    let literal = value["op"]["List"]
        .as_array()
        .is_some_and(|items| !items.is_empty() && items.iter().all(|i| i["op"]["Var"].is_string()));
    if literal {
        let copy = value["op"]["List"][0].clone();
        value["op"]["List"] = Json::Array(vec![copy; copies]);
        return;
    }
    match value {
        Json::Object(map) => map.values_mut().for_each(|v| widen_literals(v, copies)),
        Json::Array(items) => items.iter_mut().for_each(|v| widen_literals(v, copies)),
        _ => {}
    }
}

/// The first node whose op is `List` of `Var`s (the literal `[a0, a0]`).
fn doubled_literal(value: &mut Json) -> Option<&mut Json> {
    let is_it = value["op"]["List"]
        .as_array()
        .is_some_and(|items| !items.is_empty() && items.iter().all(|i| i["op"]["Var"].is_string()));
    if is_it {
        return Some(value);
    }
    match value {
        Json::Object(map) => map.values_mut().find_map(doubled_literal),
        Json::Array(items) => items.iter_mut().find_map(doubled_literal),
        _ => None,
    }
}

fn pairs(db: &Database) -> Value {
    db.run("pairs", &[7.into()]).unwrap().value
}

#[test]
fn a_plan_whose_walk_grew_past_its_steps_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open_with(dir.path().join("db"), OpenOptions::default()).unwrap();
    db.install_source("pairs.rq", PAIRS).unwrap();
    assert_eq!(pairs(&db), Value::Int(4));

    // The honest plan installs as it is.
    let honest_path = dir.path().join("honest.rqc.json");
    std::fs::write(&honest_path, serde_json::to_vec(&honest()).unwrap()).unwrap();
    db.install_plan(&honest_path).unwrap();
    assert_eq!(pairs(&db), Value::Int(4));

    // `[a0, a0]` made `[a0, …, a0]`, 8192 copies: 8192² comparisons, each
    // walking two values, for a plan that reads nothing.
    let mut plan = honest();
    let pairs_entry = entry(&mut plan, "pairs");
    let literal = doubled_literal(&mut pairs_entry["root"]).expect("the literal");
    let copy = literal["op"]["List"][0].clone();
    literal["op"]["List"] = Json::Array(vec![copy; 8192]);
    renumber(&mut pairs_entry["root"], &mut 0);
    let (code, message) = rqc_tests::refused_install(&mut db, dir.path(), &plan);
    assert_eq!(code, "E0634", "{message}");
    assert!(message.contains("steps in memory"), "{message}");
    // The honest program still answers.
    assert_eq!(pairs(&db), Value::Int(4));
    drop(db);
    let db = Database::open(dir.path().join("db")).unwrap();
    assert_eq!(pairs(&db), Value::Int(4));
}

#[test]
fn a_plan_whose_flattened_value_grew_past_the_value_room_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open_with(dir.path().join("db"), OpenOptions::default()).unwrap();
    db.install_source("pairs.rq", PAIRS).unwrap();
    assert_eq!(db.run("chain", &[7.into()]).unwrap().value, Value::Int(1));
    // Each `[c, c]` made eight copies: the last flatten makes 8^10 = 2^30
    // values, walked whole, in a plan that reads nothing.
    let mut plan = honest();
    let chain = entry(&mut plan, "chain");
    widen_literals(&mut chain["root"], 8);
    renumber(&mut chain["root"], &mut 0);
    let (code, message) = rqc_tests::refused_install(&mut db, dir.path(), &plan);
    assert_eq!(code, "E0634", "{message}");
    assert_eq!(db.run("chain", &[7.into()]).unwrap().value, Value::Int(1));
}

/// A string's length and case mapping are work by its length: with `t`'s
/// `<= 100` taken off the plan, `length(upper(t))` at each of 2^20
/// elements (each `[c, c]` made four copies) is 2^20 times a 16 MiB
/// string's steps, refused; with the bound kept the same list installs.
#[test]
fn a_plan_whose_string_lost_its_length_bound_under_a_long_walk_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open_with(dir.path().join("db"), OpenOptions::default()).unwrap();
    db.install_source("pairs.rq", PAIRS).unwrap();
    let lengths = |db: &Database| db.run("lengths", &[7.into(), "ab".into()]).unwrap().value;
    assert_eq!(lengths(&db), Value::Int(2 << 10));
    let widened = || {
        let mut plan = honest();
        let entry = entry(&mut plan, "lengths");
        widen_literals(&mut entry["root"], 4);
        renumber(&mut entry["root"], &mut 0);
        plan
    };
    // Bounded strings: 2^20 elements of a few steps each fit.
    let path = dir.path().join("wide.rqc.json");
    std::fs::write(&path, serde_json::to_vec(&widened()).unwrap()).unwrap();
    db.install_plan(&path).unwrap();
    assert_eq!(lengths(&db), Value::Int(2 << 20));
    db.install_source("pairs.rq", PAIRS).unwrap();
    let mut plan = widened();
    let params = &mut entry(&mut plan, "lengths")["params"];
    assert_eq!(params[1]["max"], json!(100), "{params}");
    params[1]["max"] = Json::Null;
    let (code, message) = rqc_tests::refused_install(&mut db, dir.path(), &plan);
    assert_eq!(code, "E0634", "{message}");
    assert_eq!(lengths(&db), Value::Int(2 << 10));
}

/// No program makes a string longer than 16 MiB (a join past it is E0539):
/// a plan file whose constant is one is refused (E0635), since its copies
/// would be work the steps do not bound.
#[test]
fn a_plan_whose_string_constant_passes_16_mib_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open_with(dir.path().join("db"), OpenOptions::default()).unwrap();
    db.install_source("pairs.rq", PAIRS).unwrap();
    let mut plan = honest();
    let text = serde_json::to_string(&plan).unwrap();
    assert!(text.contains("\"abc\""), "the constant is in the plan");
    let long = format!("\"{}\"", "a".repeat((16 << 20) + 1));
    plan = serde_json::from_str(&text.replace("\"abc\"", &long)).unwrap();
    let (code, message) = rqc_tests::refused_install(&mut db, dir.path(), &plan);
    assert_eq!(code, "E0635", "{}", &message[..message.len().min(300)]);
    assert_eq!(db.run("greeting", &[]).unwrap().value, Value::Int(3));
}
