//! The attacker's classes of edited plans (issue 33, §3), each as a plan file a person edited, installed with `Database::install_plan`: each is refused by the plan verifier with its code, the database's files are unchanged byte for byte, and the honest program answers as before.
//!
//! Before the verifier: a column position out of range, a NUL in a table
//! name and `take` with no operands panicked; a self-applying lambda ran
//! until memory ran out; a whole-table scan or delete claiming a huge bound
//! ran; two indexes of one name, an update of a key column and a default of
//! the wrong type installed and corrupted the data the honest program reads.

use rqc::{Database, OpenOptions, Value};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::path::Path;

const SHOP: &str = "
module shop

table Item {
  id: Int key
  name: String <= 40 unique
  shelf: Int
  price: Int
  index by_shelf (shelf, price)
}

mutation add(id: Int, name: String, shelf: Int, price: Int) =
  insert Item { id: id, name: name, shelf: shelf, price: price }

mutation reprice(id: Int, price: Int) = update Item[id] { price: price }

query item(id: Int) = Item[id]

query cheapest(shelf: Int, n: Int <= 10) = Item.by_shelf[shelf] |> take(n)

query first_item() = Item |> first()
";

/// The honest program as its plan file holds it.
fn honest() -> Json {
    serde_json::to_value(rqc_tests::accepted(SHOP)).unwrap()
}

/// A database at `dir` with the honest program and four items.
fn stocked(dir: &Path) -> Database {
    let mut db = Database::open_with(dir.join("db"), OpenOptions::default()).unwrap();
    db.install_source("shop.rq", SHOP).unwrap();
    for (id, name, shelf, price) in [
        (1, "lamp", 7, 30),
        (2, "desk", 7, 90),
        (3, "cup", 7, 5),
        (4, "rug", 8, 40),
    ] {
        db.run("add", &[id.into(), name.into(), shelf.into(), price.into()])
            .unwrap();
    }
    db
}

/// The database's files but its locks, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir.join("db"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().contains("lock"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// The names `cheapest(7, 10)` answers, cheapest first.
fn cheapest(db: &Database) -> Vec<String> {
    let output = db.run("cheapest", &[7.into(), 10.into()]).unwrap();
    output
        .rows()
        .iter()
        .map(|row| match row.field("name") {
            Some(Value::Str(name)) => name.clone(),
            other => panic!("a row without a name: {other:?}"),
        })
        .collect()
}

/// Installs `plan` (an edited plan file) into a stocked database: it must
/// be refused with `code`, leave every file as it was, and leave the
/// honest program answering as before.
fn refused(plan: Json, code: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut db = stocked(dir.path());
    let before = files(dir.path());
    let (found, message) = rqc_tests::refused_install(&mut db, dir.path(), &plan);
    assert_eq!(found, code, "{message}");
    assert_eq!(
        files(dir.path()),
        before,
        "a refused install changed the files"
    );
    assert_eq!(cheapest(&db), ["cup", "lamp", "desk"]);
    assert!(db.verify().unwrap().is_sound());
    drop(db);
    // And in a new process's view: the database opens with the honest
    // program, which answers as before.
    let db = Database::open(dir.path().join("db")).unwrap();
    assert_eq!(cheapest(&db), ["cup", "lamp", "desk"]);
    message
}

use rqc_tests::plan_entry as entry;

fn table(plan: &mut Json) -> &mut Json {
    &mut plan["schema"]["tables"][0]
}

#[test]
fn a_column_position_out_of_range_is_refused() {
    let mut plan = honest();
    table(&mut plan)["indexes"][1]["columns"] = json!([2, 99]);
    let message = refused(plan, "E0612");
    assert!(message.contains("position 99"), "{message}");
}

#[test]
fn a_nul_in_a_table_name_is_refused() {
    let text = serde_json::to_string(&honest())
        .unwrap()
        .replace("\"Item\"", "\"It\\u0000em\"");
    let message = refused(serde_json::from_str(&text).unwrap(), "E0610");
    assert!(message.contains("It\\0em"), "{message}");
}

#[test]
fn take_without_operands_is_refused() {
    let mut plan = honest();
    entry(&mut plan, "cheapest")["root"]["op"]["Combinator"][2] = json!([]);
    let message = refused(plan, "E0621");
    assert!(
        message.contains("`shop.cheapest`") && message.contains("operator 0"),
        "{message}"
    );
}

/// `(f => f(f))(f => f(f))`, numbered in pre-order.
fn self_application(claim: Json) -> Json {
    let node = |id: u32, op: Json| json!({"id": id, "op": op, "bound": null});
    let omega = |first: u32| {
        node(
            first,
            json!({"Lambda": [["f"], node(first + 1, json!({"Apply": [
                node(first + 2, json!({"Var": "f"})),
                [node(first + 3, json!({"Var": "f"}))]
            ]}))]}),
        )
    };
    let mut root = node(0, json!({"Apply": [omega(1), [omega(5)]]}));
    root["bound"] = claim;
    root
}

#[test]
fn a_self_applying_lambda_is_refused() {
    let mut plan = honest();
    let claim = json!({"seeks": 1, "rows": 1, "round_trips": 1});
    let first = entry(&mut plan, "first_item");
    first["root"] = self_application(claim.clone());
    first["bound"] = claim;
    let message = refused(plan, "E0640");
    assert!(
        message.contains("applied inside its own application"),
        "{message}"
    );
}

/// A whole-table read, `Item` with no prefix, read now in full.
fn whole_table(id: u32) -> Json {
    json!({"id": id, "op": {"Scan": {"table": "Item", "index": null, "prefix": [],
        "lower": null, "upper": null, "stream": false}}, "bound": null})
}

#[test]
fn a_huge_claim_over_a_whole_table_scan_is_refused() {
    let mut plan = honest();
    let claim = json!({"seeks": 1, "rows": 4_000_000_000u64, "round_trips": 1});
    let first = entry(&mut plan, "first_item");
    first["root"] = whole_table(0);
    first["root"]["bound"] = claim.clone();
    first["bound"] = claim;
    let message = refused(plan, "E0630");
    assert!(
        message.contains("reads a range of `Item` whole"),
        "{message}"
    );
}

#[test]
fn a_claim_above_the_ceiling_is_refused() {
    let mut plan = honest();
    let claim = json!({"seeks": 1, "rows": 1u64 << 40, "round_trips": 1});
    let item = entry(&mut plan, "item");
    item["root"]["bound"] = claim.clone();
    item["bound"] = claim;
    refused(plan, "E0632");
}

#[test]
fn a_delete_of_a_whole_table_is_refused() {
    let mut plan = honest();
    let claim = json!({"seeks": 1u64 << 32, "rows": 1u64 << 32, "round_trips": 1u64 << 32});
    let reprice = entry(&mut plan, "reprice");
    reprice["root"] = json!({"id": 0, "op": {"Delete": {"table": "Item", "target": whole_table(1)}},
        "bound": claim.clone()});
    reprice["bound"] = claim;
    refused(plan, "E0630");
}

#[test]
fn two_indexes_of_one_name_are_refused() {
    let mut plan = honest();
    let indexes = table(&mut plan)["indexes"].as_array_mut().unwrap();
    indexes
        .push(json!({"name": "by_shelf", "columns": [3], "descending": [false], "unique": false}));
    let message = refused(plan, "E0611");
    assert!(message.contains("index `by_shelf`"), "{message}");
}

/// A unique index made plain in the plan file drops a constraint the
/// database's schema declares: refused as a drop (E0519) unless named
/// with `--migrate`, as the same change in the source is.
#[test]
fn a_unique_index_made_plain_is_refused_as_a_drop() {
    let mut plan = honest();
    let indexes = table(&mut plan)["indexes"].as_array_mut().unwrap();
    let unique = indexes
        .iter_mut()
        .find(|i| i["unique"] == json!(true))
        .expect("the honest plan has `name`'s unique index");
    unique["unique"] = json!(false);
    // Without the writes, whose upkeep of a plain index the verifier
    // would find dearer than they claim: the plan passes it.
    let entries = plan["entries"].as_array_mut().unwrap();
    entries.retain(|e| !["add", "reprice"].contains(&e["name"].as_str().unwrap()));
    let message = refused(plan, "E0519");
    assert!(message.contains("index:Item.name"), "{message}");
}

#[test]
fn an_update_of_a_key_column_is_refused() {
    let mut plan = honest();
    let reprice = entry(&mut plan, "reprice");
    reprice["root"]["op"]["Update"]["changes"][0][0] = json!({"position": 0, "name": "id"});
    let message = refused(plan, "E0622");
    assert!(message.contains("a column of the key"), "{message}");
}

#[test]
fn a_default_of_the_wrong_type_is_refused() {
    let mut plan = honest();
    let columns = table(&mut plan)["columns"].as_array_mut().unwrap();
    columns.push(
        json!({"name": "stock", "ty": "Int", "references": null, "default": {"String": "many"}}),
    );
    let message = refused(plan, "E0613");
    assert!(
        message.contains("`Int`") && message.contains("not of that type"),
        "{message}"
    );
}

/// A `Float` default that no `Float` holds — NaN, an infinity, `-0.0` —
/// is refused (E0613) saying what the default is (not "not of that type":
/// it is a float), and the help gives the fix for a default: a finite
/// float, `0.0` for `-0.0`, and the source to recompile.
#[test]
fn a_float_default_no_float_holds_is_refused_saying_which() {
    for (bits, shown) in [
        (f64::NAN.to_bits(), "NaN"),
        (f64::INFINITY.to_bits(), "infinite"),
        (f64::NEG_INFINITY.to_bits(), "infinite"),
        ((-0.0f64).to_bits(), "-0.0"),
    ] {
        let mut plan = honest();
        let columns = table(&mut plan)["columns"].as_array_mut().unwrap();
        columns.push(
            json!({"name": "weight", "ty": "Float", "references": null, "default": {"Float": bits}}),
        );
        let message = refused(plan, "E0613");
        assert!(
            message.contains("`weight`") && message.contains(shown),
            "{shown}: {message}"
        );
        assert!(!message.contains("not of that type"), "{shown}: {message}");
        assert!(
            message.contains("weight: Float = 0.0"),
            "{shown}: the help gives a default to write: {message}"
        );
    }
}

#[test]
fn a_claim_below_the_recomputed_bound_is_refused() {
    let mut plan = honest();
    let cheapest = entry(&mut plan, "cheapest");
    cheapest["root"]["bound"]["rows"] = json!(9);
    let message = refused(plan, "E0631");
    assert!(
        message.contains("claims at most 9 rows") && message.contains("may make 10"),
        "{message}"
    );
}

/// Edits that keep every bound true install and run: a lower limit,
/// another constant, a smaller claim that still holds.
#[test]
fn sound_edits_install() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = stocked(dir.path());
    let mut plan = honest();
    {
        let cheapest = entry(&mut plan, "cheapest");
        // `take(n)` becomes `take(2)`, with its claims at what two rows cost.
        cheapest["root"]["op"]["Combinator"][2][1]["op"]["Limit"] =
            json!({"count": {"id": 4, "op": {"Const": {"Int": 2}}, "bound": null}, "max": 2});
        cheapest["root"]["bound"] = json!({"seeks": 1, "rows": 2, "round_trips": 1});
        cheapest["bound"] = json!({"seeks": 1, "rows": 2, "round_trips": 1});
    }
    let path = dir.path().join("edited.rqc.json");
    std::fs::write(&path, serde_json::to_vec(&plan).unwrap()).unwrap();
    db.install_plan(&path).unwrap();
    assert_eq!(cheapest(&db), ["cup", "lamp"]);
    let output = db.run("cheapest", &[7.into(), 10.into()]).unwrap();
    assert_eq!(output.bound.rows, 2);
}

/// `let f1 = x => f0(f0(x)); let f2 = x => f1(f1(x)); …`: each lambda
/// applies the one before twice, so the applications double at each level
/// (2^40 for 40 levels). Their run would take as long; the verifier stops
/// at its step limit, promptly, with its code.
#[test]
fn lambdas_that_double_at_each_level_are_refused_promptly() {
    use rqc_plan::{BinOp, Node, Op};
    let node = |op: Op| Node {
        id: 0,
        op,
        bound: None,
    };
    let var = |name: &str| node(Op::Var(name.into()));
    let apply = |f: &str, arg: Node| node(Op::Apply(Box::new(var(f)), vec![arg]));
    let mut body = apply("f40", node(Op::Const(Value::Int(1))));
    for level in (0..=40).rev() {
        let lambda = if level == 0 {
            node(Op::Binary(
                BinOp::Add,
                Box::new(var("x")),
                Box::new(node(Op::Const(Value::Int(1)))),
            ))
        } else {
            let before = format!("f{}", level - 1);
            apply(&before, apply(&before, var("x")))
        };
        let lambda = node(Op::Lambda(vec!["x".into()], Box::new(lambda)));
        body = node(Op::Let(
            format!("f{level}"),
            Box::new(lambda),
            Box::new(body),
        ));
    }
    let mut next = 0;
    body.walk_mut(&mut |n| {
        n.id = next;
        next += 1;
    });
    let claim = json!({"seeks": 0, "rows": 0, "round_trips": 0});
    let mut root = serde_json::to_value(&body).unwrap();
    root["bound"] = claim.clone();
    let mut plan = honest();
    let first = entry(&mut plan, "first_item");
    first["root"] = root;
    first["bound"] = claim;
    let started = std::time::Instant::now();
    let message = refused(plan, "E0641");
    assert!(message.contains("more than 2000000 steps"), "{message}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

/// Records and list literals that double at each of 60 levels, two such
/// chains met by an `if`: their values hold 2^60 parts and 240 distinct
/// ones, as the executor holds them (shared, never copied). The verifier
/// walks each shared part once and installs the plan promptly; the run
/// answers at once.
#[test]
fn values_that_double_at_each_level_are_verified_promptly() {
    // The test's own serialisation of a 250-deep tree needs more than a
    // test thread's stack (the install runs on rqc's deep stack).
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(doubling_values_install)
        .unwrap()
        .join()
        .unwrap();
}

fn doubling_values_install() {
    use rqc_plan::{BinOp, Node, Op};
    let node = |op: Op| Node {
        id: 0,
        op,
        bound: None,
    };
    let var = |name: &str| node(Op::Var(name.into()));
    let pair = |kind: char, before: &str| match kind {
        'r' => node(Op::Record(vec![
            ("p".into(), var(before)),
            ("q".into(), var(before)),
        ])),
        _ => node(Op::List(vec![var(before), var(before)])),
    };
    let one = || node(Op::Const(Value::Int(1)));
    let chosen = |kind: char| {
        node(Op::If(
            Box::new(node(Op::Binary(
                BinOp::Lt,
                Box::new(one()),
                Box::new(one()),
            ))),
            Box::new(var(&format!("{kind}a59"))),
            Box::new(var(&format!("{kind}b59"))),
        ))
    };
    let mut body = node(Op::Seq(vec![chosen('r'), chosen('l'), one()]));
    for kind in ['r', 'l'] {
        for chain in ['a', 'b'] {
            for level in (0..60).rev() {
                let value = if level == 0 {
                    node(Op::List(vec![one(), one()]))
                } else {
                    pair(kind, &format!("{kind}{chain}{}", level - 1))
                };
                body = node(Op::Let(
                    format!("{kind}{chain}{level}"),
                    Box::new(value),
                    Box::new(body),
                ));
            }
        }
    }
    let mut next = 0;
    body.walk_mut(&mut |n| {
        n.id = next;
        next += 1;
    });
    let claim = json!({"seeks": 0, "rows": 0, "round_trips": 0});
    let mut root = serde_json::to_value(&body).unwrap();
    root["bound"] = claim.clone();
    let mut plan = honest();
    let first = entry(&mut plan, "first_item");
    first["root"] = root;
    first["bound"] = claim;
    let dir = tempfile::tempdir().unwrap();
    let mut db = stocked(dir.path());
    let path = dir.path().join("edited.rqc.json");
    std::fs::write(&path, serde_json::to_vec(&plan).unwrap()).unwrap();
    let started = std::time::Instant::now();
    db.install_plan(&path).unwrap();
    assert_eq!(db.run("first_item", &[]).unwrap().value, Value::Int(1));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

/// An operator of an edited plan; [`numbered`] gives the ids.
fn op(op: Json) -> Json {
    json!({"id": 0, "op": op, "bound": null})
}

/// Numbers the operators of `node` in pre-order from `next`, as the
/// verifier requires (each node before its operands, in their order).
fn numbered(node: &mut Json, next: &mut u32) {
    match node {
        Json::Object(map) if map.contains_key("op") => {
            map.insert("id".into(), json!(*next));
            *next += 1;
            numbered(map.get_mut("op").unwrap(), next);
        }
        Json::Object(map) => map.values_mut().for_each(|v| numbered(v, next)),
        Json::Array(items) => items.iter_mut().for_each(|v| numbered(v, next)),
        _ => {}
    }
}

/// The honest plan with `cheapest`'s count replaced by `count`, `n` (its
/// parameter 1) declared with no maximum and an optional `Int` `o` beside
/// it (parameter 2), its claims `rows` rows: only what the plan itself
/// says of the count can bound the read.
fn counted(count: Json, rows: u64) -> Json {
    let mut plan = honest();
    let cheapest = entry(&mut plan, "cheapest");
    cheapest["params"][1]["max"] = json!(null);
    let mut o = cheapest["params"][1].clone();
    o["name"] = json!("o");
    o["ty"] = json!({"Scalar": {"Optional": "Int"}});
    cheapest["params"].as_array_mut().unwrap().push(o);
    cheapest["root"]["op"]["Combinator"][2][1] = count;
    let mut next = 0;
    numbered(&mut cheapest["root"], &mut next);
    let claim = json!({"seeks": 1, "rows": rows, "round_trips": 1});
    cheapest["root"]["bound"] = claim.clone();
    cheapest["bound"] = claim;
    plan
}

fn param(i: usize) -> Json {
    op(json!({"Param": i}))
}

fn int(n: i64) -> Json {
    op(json!({"Const": {"Int": n}}))
}

fn var(name: &str) -> Json {
    op(json!({"Var": name}))
}

fn binary(operator: &str, a: Json, b: Json) -> Json {
    op(json!({"Binary": [operator, a, b]}))
}

fn let_in(name: &str, value: Json, body: Json) -> Json {
    op(json!({"Let": [name, value, body]}))
}

fn if_else(c: Json, then: Json, otherwise: Json) -> Json {
    op(json!({"If": [c, then, otherwise]}))
}

/// Installs `plan` into a stocked database: `cheapest(7, n)` then runs
/// within `rows` rows and answers `answers` of the shelf's three items.
fn installs(plan: Json, rows: u64, n: i64, answers: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut db = stocked(dir.path());
    let path = dir.path().join("edited.rqc.json");
    std::fs::write(&path, serde_json::to_vec(&plan).unwrap()).unwrap();
    db.install_plan(&path).unwrap();
    let output = db
        .run("cheapest", &[7.into(), n.into(), Value::Null])
        .unwrap();
    assert_eq!(output.bound.rows, rows);
    assert_eq!(output.rows().len(), answers);
}

/// A count only an `if` bounds, `take(if n > 10 { 10 } else { n })` with
/// `n` unbounded and no `Limit` (as generic code is planned): the else
/// branch narrows `n` to at most 10, so the plan reads at most 10 rows
/// and installs with that claim, and runs within it; claiming 9 is refused.
#[test]
fn a_count_an_if_narrows_installs() {
    let count = || {
        let test = binary("Gt", param(1), int(10));
        if_else(test, int(10), param(1))
    };
    installs(counted(count(), 10), 10, 1_000_000, 3);
    let message = refused(counted(count(), 9), "E0631");
    assert!(message.contains("claims at most 9 rows"), "{message}");
}

/// A condition a `let` names narrows, in an `if` that tests the name, the
/// binding it compared (`let k = n; let c = k <= 10; if c { k } else
/// { 0 }` installs claiming 10 rows), and only that binding: with `k`
/// bound again between the test and the `if` to another unbounded value
/// (`u`), the `k` the branch reads is another binding, which the condition
/// proves nothing of, and the plan is refused. (Bound again to `n`
/// itself, it is the sum `n`, which the branch knows at most 10: spec/cost.md
/// §3.1, a `let`-bound sum read in a branch.)
#[test]
fn a_named_condition_narrows_only_the_binding_it_compared() {
    let count = |rebound: Option<usize>| {
        let branch = if_else(var("c"), var("k"), int(0));
        let body = match rebound {
            Some(p) => let_in("k", param(p), branch),
            None => branch,
        };
        let test = binary("LtEq", var("k"), int(10));
        let_in("k", param(1), let_in("c", test, body))
    };
    installs(counted(count(None), 10), 10, 2, 2);
    installs(counted(count(Some(1)), 10), 10, 2, 2);
    let message = refused(counted(count(Some(0)), 10), "E0630");
    assert!(message.contains("count has no upper end"), "{message}");
}

/// An optional side narrows nothing: `none` compares below every number,
/// so `n > o` holds for any `n` when `o` is `none`, and `10 - n` in the
/// then branch is unbounded (with `o` a plain `5` it would be at most 4).
#[test]
fn an_optional_side_narrows_nothing() {
    let test = binary("Gt", param(1), param(2));
    let count = if_else(test, binary("Sub", int(10), param(1)), int(0));
    let message = refused(counted(count, 10), "E0630");
    assert!(message.contains("count has no upper end"), "{message}");
}

/// A `Limit` over a count nothing bounds above (`n + n`, `n` unbounded)
/// claiming a maximum of 10: the plan would read at most 10 rows, but the
/// run's check of the count would fail with "a bug in rqc" (E0599) for
/// `n = 6`; it is refused before (E0633), as is a maximum below a count
/// the rules bound (`n % 10` claiming 8).
#[test]
fn a_limit_over_a_count_it_does_not_bound_is_refused() {
    let limit = |count: Json, max: u64| op(json!({"Limit": {"count": count, "max": max}}));
    let sum = binary("Add", param(1), param(1));
    let message = refused(counted(limit(sum, 10), 10), "E0633");
    assert!(
        message.contains("no upper end") && message.contains("maximum 10"),
        "{message}"
    );
    let remainder = || binary("Rem", param(1), int(10));
    let message = refused(counted(limit(remainder(), 8), 8), "E0633");
    assert!(
        message.contains("may be 9, above the maximum 8"),
        "{message}"
    );
    installs(counted(limit(remainder(), 9), 9), 9, 1_000_002, 2);
}
