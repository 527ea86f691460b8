//! The examples: each checks with the verdicts its README states, and runs.
//! TPC-C runs a transaction mix and then passes the consistency conditions
//! of its clause 3.3.2. Each runs in memory and on etcd.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::dump::Dump;
use rqc_runtime::{Engine, Output};
use rqc_tests::{relative, rq_files};
use std::collections::{BTreeMap, BTreeSet};

/// The store an example runs on.
#[derive(Clone, Copy)]
enum On {
    Memory,
    /// A one-member cluster of the test's thread, a fresh prefix.
    Etcd,
}

fn engine(example: &str, on: On) -> Engine {
    let files: Vec<(String, String)> = rq_files(&format!("examples/{example}"))
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    let compilation = compile(&files);
    let rejected: Vec<&str> = compilation
        .checked
        .verdicts
        .iter()
        .filter(|v| !v.accepted)
        .map(|v| v.name.as_str())
        .collect();
    if example == "tpch" {
        assert_eq!(
            rejected,
            vec!["q1", "q3", "q4", "q6", "q10", "q13", "q14", "q15", "q17", "q18", "q22"]
        );
        assert!(
            compilation
                .diagnostics
                .iter()
                .all(|d| d.code == "E0301" && d.message.starts_with("rows grow with N(")),
            "each rejection names the table it grows with"
        );
    } else {
        assert!(
            compilation.diagnostics.is_empty(),
            "{example}: {:#?}",
            compilation.diagnostics
        );
    }
    let mut engine = match on {
        On::Memory => Engine::in_memory(),
        On::Etcd => rqc_tests::etcd::engine(),
    };
    engine.install(compilation.program).unwrap();
    engine
}

fn run(engine: &Engine, name: &str, args: Vec<Value>) -> Output {
    let output = engine
        .run(name, &args)
        .unwrap_or_else(|e| panic!("{name}({args:?}): {e}"));
    assert!(output.stats.seeks <= output.bound.seeks && output.stats.rows <= output.bound.rows);
    output
}

/// The rows of `name` the dump read.
fn table<'a>(dump: &'a Dump, name: &str) -> &'a [Value] {
    &dump.tables.iter().find(|(t, _)| t == name).unwrap().1
}

fn int(row: &Value, field: &str) -> i64 {
    match row.field(field) {
        Some(Value::Int(n)) => *n,
        other => panic!("{field} is not an Int: {other:?}"),
    }
}

fn float(row: &Value, field: &str) -> f64 {
    match row.field(field) {
        Some(Value::Float(x)) => *x,
        other => panic!("{field} is not a Float: {other:?}"),
    }
}

fn ycsb_operations(on: On) {
    let e = engine("ycsb", on);
    for i in 0..50 {
        run(
            &e,
            "insert_record",
            vec![format!("user{i:03}").into(), "v".into()],
        );
    }
    assert_eq!(run(&e, "read", vec!["user007".into()]).rows().len(), 1);
    let scanned = run(&e, "scan", vec!["user040".into(), 20.into()])
        .rows()
        .to_vec();
    assert_eq!(scanned.len(), 10, "from user040 to user049");
    assert_eq!(scanned[0].field("key_"), Some(&Value::from("user040")));
    run(&e, "update_record", vec!["user007".into(), "w".into()]);
    run(&e, "read_modify_write", vec!["user007".into(), "!".into()]);
    let read = run(&e, "read", vec!["user007".into()]).rows().to_vec();
    assert_eq!(read[0].field("field0"), Some(&Value::from("w")));
    assert_eq!(read[0].field("field1"), Some(&Value::from("v!")));
    // A field at its 100 bytes is replaced by the suffix, not overrun.
    let full = "f".repeat(100);
    run(&e, "insert_record", vec!["user999".into(), full.into()]);
    run(
        &e,
        "read_modify_write",
        vec!["user999".into(), "new".into()],
    );
    let read = run(&e, "read", vec!["user999".into()]).rows().to_vec();
    assert_eq!(read[0].field("field1"), Some(&Value::from("new")));
}

fn linkbench_operations(on: On) {
    let e = engine("linkbench", on);
    for id in 1..=5 {
        run(
            &e,
            "add_node",
            vec![id.into(), 1.into(), 0.into(), "n".into()],
        );
    }
    for (to, time) in [(2, 10), (3, 30), (4, 20)] {
        run(
            &e,
            "add_link",
            vec![1.into(), 7.into(), to.into(), time.into(), "l".into()],
        );
    }
    assert_eq!(
        run(&e, "count_links", vec![1.into(), 7.into()]).value,
        Value::Int(3)
    );
    let list = run(&e, "get_link_list", vec![1.into(), 7.into(), 2.into()])
        .rows()
        .to_vec();
    let newest: Vec<Value> = list
        .iter()
        .map(|l| l.field("id2").unwrap().clone())
        .collect();
    assert_eq!(
        newest,
        vec![Value::Int(3), Value::Int(4)],
        "newest first, limited"
    );
    run(
        &e,
        "delete_link",
        vec![1.into(), 7.into(), 3.into(), 40.into()],
    );
    assert_eq!(
        run(&e, "count_links", vec![1.into(), 7.into()]).value,
        Value::Int(2)
    );
    let multi = run(
        &e,
        "multiget_links",
        vec![
            1.into(),
            7.into(),
            Value::List(vec![2.into(), 3.into(), 4.into()]),
        ],
    )
    .rows()
    .to_vec();
    assert_eq!(multi.len(), 2);
    run(&e, "update_node", vec![2.into(), 50.into(), "m".into()]);
    assert_eq!(
        run(&e, "get_node", vec![2.into()]).rows()[0].field("version"),
        Some(&Value::Int(1))
    );
    run(&e, "delete_node", vec![5.into()]);
    assert!(run(&e, "get_node", vec![5.into()]).rows().is_empty());
}

fn feature_store_lookups_and_window(on: On) {
    let e = engine("feature_store", on);
    run(
        &e,
        "add_customer",
        vec![1.into(), "gold".into(), "NZ".into()],
    );
    run(
        &e,
        "add_profile",
        vec![1.into(), Value::Float(120.5), 3.into()],
    );
    run(&e, "add_risk", vec![1.into(), Value::Float(0.25)]);
    for (at, amount) in [(10, 5.0), (20, 7.5), (30, 1.0)] {
        run(
            &e,
            "record",
            vec![1.into(), at.into(), Value::Float(amount)],
        );
    }
    let features = run(&e, "features", vec![1.into()]).value;
    assert_eq!(features.field("risk"), Some(&Value::Float(0.25)));
    assert_eq!(
        run(&e, "spend_since", vec![1.into(), 20.into()]).value,
        Value::Float(8.5)
    );
    assert_eq!(
        run(&e, "events_in", vec![1.into(), 15.into()]).value,
        Value::Int(2)
    );
    assert_eq!(
        run(&e, "batch", vec![Value::List(vec![1.into(), 2.into()])])
            .rows()
            .len(),
        2
    );
    // An order steps the profile in place; a score is upserted.
    run(&e, "order", vec![1.into(), 40.into(), Value::Float(9.5)]);
    let profile = run(&e, "features", vec![1.into()]).value;
    let profile = profile.field("profile").cloned().unwrap_or(Value::Null);
    assert_eq!(profile.field("lifetime_value"), Some(&Value::Float(130.0)));
    assert_eq!(profile.field("orders"), Some(&Value::Int(4)));
    run(&e, "score", vec![1.into(), Value::Float(0.5), "v2".into()]);
    run(
        &e,
        "add_customer",
        vec![2.into(), "new".into(), "FR".into()],
    );
    run(&e, "score", vec![2.into(), Value::Float(0.75), "v2".into()]);
    let batch = run(&e, "batch", vec![Value::List(vec![1.into(), 2.into()])]);
    let risks: Vec<Option<&Value>> = batch.rows().iter().map(|r| r.field("risk")).collect();
    assert_eq!(
        risks,
        [Some(&Value::Float(0.5)), Some(&Value::Float(0.75))],
        "the first score replaced, the second inserted"
    );
}

fn tpch_rejects_the_analytic_queries_and_runs_the_per_key_variants(on: On) {
    let e = engine("tpch", on);
    // The per-key variants need data only to run; the verdicts were checked.
    assert!(run(&e, "q2_for_part", vec![1.into(), 1.into()])
        .rows()
        .is_empty());
    assert!(run(&e, "q20_for_supplier", vec![1.into(), 10.into()])
        .rows()
        .is_empty());
}

/// TPC-C on two warehouses, scaled down (30 customers per district, 200
/// items, one initial order per customer), then a mix of the five
/// transactions: every consistency condition of clause 3.3.2 holds on the
/// population and after the mix, read from the rows `dump` gives.
fn tpcc_mix_keeps_the_consistency_conditions(on: On) {
    use rqc_tests::tpcc::{population, Mix, Scale, Txn};
    use rqc_tests::tpcc_conditions::{check, Deliveries};
    let e = engine("tpcc", on);
    let scale = Scale {
        warehouses: 2,
        customers: 30,
        items: 200,
    };
    for (name, args) in population(scale, 7) {
        run(&e, name, args);
    }
    let loaded = e.dump().unwrap();
    assert_eq!(table(&loaded, "History").len(), 2 * 10 * 30, "one each");
    assert_eq!(check(&loaded, scale, &Deliveries::default()), []);
    // The standard mix (45% New-Order, 43% Payment, 4% each of the rest),
    // all in warehouse 1; Delivery answers the orders it delivered. The
    // New-Orders TPC-C rolls back are refused by the unused item's
    // reference (E0503) and leave nothing: the conditions still hold.
    let mut rng = rqc_tests::Rng::new(42);
    let mix = Mix::new(scale, 7, 42);
    let mut deliveries = Deliveries::default();
    for h in 0..400 {
        let txn = mix.draw(&mut rng);
        let (name, args) = txn.call(1, h);
        if txn.rolls_back() {
            let refused = e
                .run(name, &args)
                .expect_err("an unused item refuses the order");
            assert_eq!(refused.code, "E0503", "{refused}");
            continue;
        }
        let output = run(&e, name, args);
        if let Txn::Delivery { .. } = txn {
            deliveries.record(1, output.rows());
        }
    }
    let dump = e.dump().unwrap();
    let orders = table(&dump, "Orders");
    let new_orders = table(&dump, "NewOrder");
    assert!(
        orders.len() >= 600 + 90 && !new_orders.is_empty() && new_orders.len() < orders.len(),
        "the population loaded and the mix ran"
    );
    let delivered: i64 = deliveries.0.values().sum();
    assert!(delivered >= 50, "Delivery ran: {delivered} orders");
    let violations = check(&dump, scale, &deliveries);
    assert!(violations.is_empty(), "{violations:#?}");
    the_checker_finds_each_tampering(&dump, scale, &deliveries);
    // The dump the drivers check, cut to the columns the conditions read
    // as each row is read: the same verdicts, on every tampering too.
    let mut read = rqc_tests::tpcc_conditions::ReadDump::default();
    e.dump_each(&mut |dumped| {
        read.take(dumped);
        Ok(())
    })
    .unwrap();
    let read = read.finish();
    assert!(read.tables.iter().all(|(t, _)| t != "Stock" && t != "Item"));
    assert_eq!(check(&read, scale, &deliveries), []);
    the_checker_finds_each_tampering(&read, scale, &deliveries);
    // The mix's orders (ids past the population's): each line's amount is
    // its item's price times its quantity, in the same floating point.
    let price: BTreeMap<i64, f64> = table(&dump, "Item")
        .iter()
        .map(|i| (int(i, "id"), float(i, "price")))
        .collect();
    let placed: Vec<&Value> = table(&dump, "OrderLine")
        .iter()
        .filter(|l| int(l, "o_id") > scale.customers)
        .collect();
    assert!(placed.len() >= 5 * 150, "New-Order placed lines");
    for line in placed {
        let expected = price[&int(line, "i_id")] * int(line, "quantity") as f64;
        assert_eq!(float(line, "amount"), expected, "{line:?}");
    }
    // C_PAYMENT_CNT, the maintained aggregate `payments_of`: each
    // customer's equals its History rows (Order-Status reads it), and
    // every aggregate equals a recount of its groups (`verify`).
    let mut paid: BTreeMap<(i64, i64, i64), i64> = BTreeMap::new();
    for h in table(&dump, "History") {
        *paid
            .entry((int(h, "c_w_id"), int(h, "c_d_id"), int(h, "c_id")))
            .or_default() += 1;
    }
    assert!(
        paid.values().any(|&n| n > 1),
        "the mix made payments beside the population's"
    );
    for (&(w, d, c), &n) in paid.iter().filter(|(_, &n)| n > 1).take(20) {
        let status = run(&e, "order_status", vec![w.into(), d.into(), c.into()]).value;
        assert_eq!(
            status.field("payments"),
            Some(&Value::Int(n)),
            "{w}/{d}/{c}"
        );
    }
    let found = e.verify().unwrap();
    assert!(found.is_sound(), "{:?}", found.problems);
}

/// A New-Order TPC-C rolls back (its last item id unused, 2.4.2.3) is
/// refused at that line's reference (E0503) and leaves no trace: every row
/// as before (District's D_NEXT_O_ID included), every aggregate and
/// reference counter equal to a recount (`verify`). The district's next
/// New-Order then takes the id the refused one would have (D_NEXT_O_ID
/// was not advanced), so order ids stay consecutive and the conditions
/// hold.
#[test]
fn tpcc_a_rolled_back_new_order_leaves_no_trace() {
    use rqc_tests::tpcc::{population, Scale, Txn};
    use rqc_tests::tpcc_conditions::{check, Deliveries};
    let e = engine("tpcc", On::Memory);
    let scale = Scale {
        warehouses: 1,
        customers: 30,
        items: 200,
    };
    for (name, args) in population(scale, 3) {
        run(&e, name, args);
    }
    let next_o_id = |dump: &Dump, d: i64| {
        let district = table(dump, "District")
            .iter()
            .find(|r| int(r, "id") == d)
            .unwrap();
        int(district, "next_o_id")
    };
    // One New-Order placed first, so the refused one follows a write.
    let placed = Txn::NewOrder {
        d: 4,
        c: 7,
        lines: vec![(10, 1), (11, 2), (12, 3), (13, 4), (14, 5)],
        rollback: false,
    };
    let (name, args) = placed.call(1, 1);
    run(&e, name, args);
    let before = e.dump().unwrap();
    let o = next_o_id(&before, 4);
    assert_eq!(
        o,
        scale.customers + 2,
        "the population's orders and one more"
    );
    let refused = Txn::NewOrder {
        d: 4,
        c: 9,
        lines: vec![(20, 1), (21, 2), (22, 3), (23, 4), (scale.items + 1, 5)],
        rollback: true,
    };
    let (name, args) = refused.call(1, 2);
    let error = e.run(name, &args).expect_err("an unused item id");
    assert_eq!(error.code, "E0503", "{error}");
    let after = e.dump().unwrap();
    assert_eq!(after, before, "the refused New-Order changed a row");
    let found = e.verify().unwrap();
    assert!(found.is_sound(), "{:?}", found.problems);
    // The next New-Order in the district takes the id the refused one
    // would have had.
    let next = Txn::NewOrder {
        d: 4,
        c: 9,
        lines: vec![(20, 1), (21, 2), (22, 3), (23, 4), (24, 5)],
        rollback: false,
    };
    let (name, args) = next.call(1, 3);
    run(&e, name, args);
    let dump = e.dump().unwrap();
    assert_eq!(next_o_id(&dump, 4), o + 1);
    let ids: Vec<i64> = table(&dump, "Orders")
        .iter()
        .filter(|r| int(r, "d_id") == 4)
        .map(|r| int(r, "id"))
        .collect();
    assert_eq!(ids, (1..=o).collect::<Vec<_>>(), "consecutive order ids");
    let stock_of = |dump: &Dump, i: i64| {
        table(dump, "Stock")
            .iter()
            .find(|r| int(r, "i_id") == i)
            .map(|r| int(r, "quantity"))
    };
    assert_ne!(
        stock_of(&dump, 20),
        stock_of(&before, 20),
        "its stock moved now"
    );
    assert_eq!(check(&dump, scale, &Deliveries::default()), []);
    assert!(e.verify().unwrap().is_sound());
}

/// The checker is not vacuous: a cent off a balance, a district's YTD
/// off by 1.00, a lost order line and a lost new order are each reported
/// under the conditions they break, and only those.
fn the_checker_finds_each_tampering(
    dump: &Dump,
    scale: rqc_tests::tpcc::Scale,
    deliveries: &rqc_tests::tpcc_conditions::Deliveries,
) {
    use rqc_tests::tpcc_conditions::check;
    let clauses = |dump: &Dump| -> BTreeSet<&'static str> {
        check(dump, scale, deliveries)
            .iter()
            .map(|v| v.clause)
            .collect()
    };
    let tampered = |name: &str, change: &dyn Fn(&mut Vec<Value>)| {
        let mut copy = dump.clone();
        let (_, rows) = copy.tables.iter_mut().find(|(t, _)| t == name).unwrap();
        change(rows);
        copy
    };
    let add = |row: &mut Value, name: &str, x: f64| {
        let Value::Record(record) = row else {
            unreachable!()
        };
        let Some(Value::Float(v)) = record.get_mut(name) else {
            unreachable!()
        };
        *v += x;
    };
    let balance = tampered("Customer", &|rows| add(&mut rows[0], "balance", 0.01));
    assert_eq!(clauses(&balance), BTreeSet::from(["3.3.2.10", "3.3.2.12"]));
    let ytd = tampered("District", &|rows| add(&mut rows[3], "ytd", 1.0));
    assert_eq!(clauses(&ytd), BTreeSet::from(["3.3.2.1", "3.3.2.9"]));
    // The last line of an order not yet delivered.
    let line = tampered("OrderLine", &|rows| {
        let at = rows
            .iter()
            .rposition(|l| l.field("delivery_d") == Some(&Value::Null))
            .unwrap();
        rows.remove(at);
    });
    assert_eq!(
        clauses(&line),
        BTreeSet::from(["3.3.2.4", "3.3.2.6", "2.4.2.2"])
    );
    // The oldest new order of the first district.
    let new_order = tampered("NewOrder", &|rows| drop(rows.remove(0)));
    assert_eq!(clauses(&new_order), BTreeSet::from(["3.3.2.5", "3.3.2.11"]));
}

// Each example on each store, as tests of their own (they run in parallel).

#[test]
fn ycsb_operations_in_memory() {
    ycsb_operations(On::Memory);
}

#[test]
fn ycsb_operations_on_etcd() {
    ycsb_operations(On::Etcd);
}

#[test]
fn linkbench_operations_in_memory() {
    linkbench_operations(On::Memory);
}

#[test]
fn linkbench_operations_on_etcd() {
    linkbench_operations(On::Etcd);
}

#[test]
fn feature_store_lookups_and_window_in_memory() {
    feature_store_lookups_and_window(On::Memory);
}

#[test]
fn feature_store_lookups_and_window_on_etcd() {
    feature_store_lookups_and_window(On::Etcd);
}

#[test]
fn tpch_rejects_the_analytic_queries_and_runs_the_per_key_variants_in_memory() {
    tpch_rejects_the_analytic_queries_and_runs_the_per_key_variants(On::Memory);
}

#[test]
fn tpch_rejects_the_analytic_queries_and_runs_the_per_key_variants_on_etcd() {
    tpch_rejects_the_analytic_queries_and_runs_the_per_key_variants(On::Etcd);
}

#[test]
fn tpcc_mix_keeps_the_consistency_conditions_in_memory() {
    tpcc_mix_keeps_the_consistency_conditions(On::Memory);
}

#[test]
fn tpcc_mix_keeps_the_consistency_conditions_on_etcd() {
    tpcc_mix_keeps_the_consistency_conditions(On::Etcd);
}
