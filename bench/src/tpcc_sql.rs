//! The TPC-C example in SQL: the same nine tables with the same columns
//! and values, the same population, and the five transactions doing what
//! examples/tpcc/tpcc.rq does, step by step, with prepared statements, in
//! any warehouse; a New-Order with an unused item rolls back.

use crate::cells::{sql_cell, sql_value, Cell};
use rqc::{Durability, Value};
use rqc_tests::tpcc::Txn;
use rusqlite::types::Value as Sql;
use rusqlite::{params, Connection, Transaction, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

/// The indexes: rqc's two secondary indexes, either as an application
/// declares them, or covering the row as rqc's copies do (then SQLite too
/// rewrites an index entry when any column of its row changes).
pub fn schema(covering: bool) -> String {
    let (customer, orders) = if covering {
        (
            ", credit, discount, balance, ytd_payment, payment_cnt, delivery_cnt",
            ", entry_d, carrier_id, ol_cnt",
        )
    } else {
        ("", "")
    };
    format!(
        "CREATE TABLE warehouse (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tax REAL NOT NULL, ytd REAL NOT NULL);
         CREATE TABLE district (w_id INTEGER NOT NULL REFERENCES warehouse(id), id INTEGER NOT NULL, name TEXT NOT NULL,
                                tax REAL NOT NULL, ytd REAL NOT NULL, next_o_id INTEGER NOT NULL, PRIMARY KEY (w_id, id)) WITHOUT ROWID;
         CREATE TABLE customer (w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, id INTEGER NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL,
                                credit TEXT NOT NULL, discount REAL NOT NULL, balance REAL NOT NULL, ytd_payment REAL NOT NULL,
                                payment_cnt INTEGER NOT NULL, delivery_cnt INTEGER NOT NULL, PRIMARY KEY (w_id, d_id, id)) WITHOUT ROWID;
         CREATE INDEX customer_by_last ON customer (w_id, d_id, last, first{customer});
         CREATE TABLE history (id INTEGER PRIMARY KEY, c_w_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_id INTEGER NOT NULL,
                               w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, date INTEGER NOT NULL, amount REAL NOT NULL);
         CREATE TABLE orders (w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, id INTEGER NOT NULL, c_id INTEGER NOT NULL,
                              entry_d INTEGER NOT NULL, carrier_id INTEGER, ol_cnt INTEGER NOT NULL, PRIMARY KEY (w_id, d_id, id)) WITHOUT ROWID;
         CREATE INDEX orders_by_customer ON orders (w_id, d_id, c_id, id DESC{orders});
         CREATE TABLE new_order (w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, o_id INTEGER NOT NULL, PRIMARY KEY (w_id, d_id, o_id)) WITHOUT ROWID;
         CREATE TABLE order_line (w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, o_id INTEGER NOT NULL, number INTEGER NOT NULL,
                                  i_id INTEGER NOT NULL, quantity INTEGER NOT NULL, amount REAL NOT NULL, delivery_d INTEGER,
                                  PRIMARY KEY (w_id, d_id, o_id, number)) WITHOUT ROWID;
         CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL);
         CREATE TABLE stock (w_id INTEGER NOT NULL, i_id INTEGER NOT NULL, quantity INTEGER NOT NULL, ytd INTEGER NOT NULL,
                             order_cnt INTEGER NOT NULL, PRIMARY KEY (w_id, i_id)) WITHOUT ROWID;"
    )
}

/// The population mutations of the example in SQL, with the defaults its
/// mutations fill in.
fn population_sql(name: &str) -> &'static str {
    match name {
        "add_item" => "INSERT INTO item VALUES (?1, 'item', ?2)",
        "add_warehouse" => "INSERT INTO warehouse VALUES (?1, 'w', 0.1, ?2)",
        "add_stock" => "INSERT INTO stock VALUES (?1, ?2, ?3, 0, 0)",
        "add_district" => "INSERT INTO district VALUES (?1, ?2, 'd', 0.1, ?4, ?3)",
        "add_customer" => {
            // payment_cnt starts at 1, as rqc's `payments_of`: the
            // population's History row (add_history) is the first payment.
            "INSERT INTO customer VALUES (?1, ?2, ?3, ?4, ?5, 'GC', 0.1, -10.0, 10.0, 1, 0)"
        }
        "add_history" => "INSERT INTO history VALUES (?1, ?2, ?3, ?4, ?2, ?3, 0, ?5)",
        "add_order" => "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        "add_order_line" => "INSERT INTO order_line VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        "add_new_order" => "INSERT INTO new_order VALUES (?1, ?2, ?3)",
        other => panic!("no SQL for {other}"),
    }
}

/// SQLite's `synchronous` for rqc's durability level: each compared only
/// with its match (decisions.md). In WAL mode: `FULL` syncs the log at
/// every commit (a commit survives a power loss); `NORMAL` syncs it at
/// checkpoints only (a power loss may lose the last commits, never
/// corrupts); `OFF` never syncs.
pub fn synchronous(durability: Durability) -> &'static str {
    match durability {
        Durability::Full => "FULL",
        Durability::Normal => "NORMAL",
        Durability::None => "OFF",
    }
}

/// A connection as an application opens one: WAL, `synchronous` per
/// `durability` (a setting of the connection, so every terminal's sets
/// it), and waiting for the writer rather than failing at once.
pub fn connect(path: &Path, durability: Durability) -> Connection {
    let conn = Connection::open(path).expect("sqlite");
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", synchronous(durability))
        .unwrap();
    conn.busy_timeout(Duration::from_secs(60)).unwrap();
    conn
}

/// A new database with the schema and no rows.
pub fn create(path: &Path, covering: bool, durability: Durability) -> Connection {
    let conn = connect(path, durability);
    conn.execute_batch(&schema(covering)).unwrap();
    conn
}

/// Inserts population calls (`tpcc::each_population_call`'s) in one
/// transaction: the loader hands them over a batch at a time.
pub fn load(conn: &mut Connection, calls: &[(&'static str, Vec<Value>)]) {
    let tx = conn.transaction().unwrap();
    for (name, args) in calls {
        let values: Vec<Sql> = args.iter().map(sql_value).collect();
        tx.prepare_cached(population_sql(name))
            .unwrap()
            .execute(rusqlite::params_from_iter(values))
            .unwrap();
    }
    tx.commit().unwrap();
    // No ANALYZE, as for the reads (see social.rs): statistics would make
    // SQLite re-prepare statements on every binding.
}

/// Every column of the one row `sql` selects, if any.
fn row(tx: &Transaction<'_>, sql: &str, args: impl rusqlite::Params) -> Option<Vec<Sql>> {
    let mut stmt = tx.prepare_cached(sql).unwrap();
    let width = stmt.column_count();
    let mut rows = stmt.query(args).unwrap();
    rows.next()
        .unwrap()
        .map(|r| (0..width).map(|c| r.get(c).unwrap()).collect())
}

fn one<T: rusqlite::types::FromSql>(
    tx: &Transaction<'_>,
    sql: &str,
    args: impl rusqlite::Params,
) -> Option<T> {
    let mut stmt = tx.prepare_cached(sql).unwrap();
    let mut rows = stmt.query(args).unwrap();
    rows.next().unwrap().map(|r| r.get(0).unwrap())
}

fn exec(tx: &Transaction<'_>, sql: &str, args: impl rusqlite::Params) {
    tx.prepare_cached(sql).unwrap().execute(args).unwrap();
}

/// How a transaction ended.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// Committed; a Delivery's districts, one per order it delivered.
    Committed(Vec<i64>),
    /// A New-Order whose item lookup found nothing: rolled back whole.
    RolledBack,
}

/// Runs transaction number `h` in warehouse `w` as one SQLite transaction
/// (the writers `BEGIN IMMEDIATE`, as an application in WAL mode does so
/// that two never deadlock upgrading a read); with a sink, hands over what
/// the example's entry returns (a query's result; New-Order's line count),
/// converted only then.
pub fn run(
    conn: &mut Connection,
    w: i64,
    txn: &Txn,
    h: i64,
    sink: Option<&mut Vec<Vec<Cell>>>,
) -> Outcome {
    let behavior = match txn {
        Txn::OrderStatus { .. } | Txn::OrderStatusByName { .. } | Txn::StockLevel { .. } => {
            TransactionBehavior::Deferred
        }
        _ => TransactionBehavior::Immediate,
    };
    let tx = conn.transaction_with_behavior(behavior).unwrap();
    let mut delivered = Vec::new();
    let out = match txn {
        Txn::NewOrder { d, c, lines, .. } => {
            let o: i64 = one(
                &tx,
                "SELECT next_o_id FROM district WHERE w_id = ?1 AND id = ?2",
                [w, *d],
            )
            .unwrap_or(0);
            exec(
                &tx,
                "UPDATE district SET next_o_id = next_o_id + 1 WHERE w_id = ?1 AND id = ?2",
                [w, *d],
            );
            exec(
                &tx,
                "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6)",
                params![w, d, o, c, h, lines.len() as i64],
            );
            exec(
                &tx,
                "INSERT INTO new_order VALUES (?1, ?2, ?3)",
                params![w, d, o],
            );
            for (number, (i, q)) in (1i64..).zip(lines) {
                let Some(price): Option<f64> =
                    one(&tx, "SELECT price FROM item WHERE id = ?1", [i])
                else {
                    // TPC-C 2.4.2.3: "not-found", the transaction rolls back
                    // (dropping it does).
                    drop(tx);
                    return Outcome::RolledBack;
                };
                exec(
                    &tx,
                    "UPDATE stock SET quantity = CASE WHEN quantity - ?3 >= 10 THEN quantity - ?3 \
                     ELSE quantity - ?3 + 91 END WHERE w_id = ?1 AND i_id = ?2",
                    params![w, i, q],
                );
                // The amount in floating point, as rqc's `price * float(q)`.
                exec(
                    &tx,
                    "INSERT INTO order_line VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL)",
                    params![w, d, o, number, i, q, price * *q as f64],
                );
            }
            vec![vec![Cell::Int(lines.len() as i64)]]
        }
        Txn::Payment { d, c, amount } => {
            payment(&tx, w, *d, *c, *amount, h);
            Vec::new()
        }
        Txn::PaymentByName { d, name, amount } => {
            let c = by_last_name(&tx, w, *d, name);
            payment(&tx, w, *d, c, *amount, h);
            Vec::new()
        }
        Txn::OrderStatus { d, c } => order_status(&tx, w, *d, *c, sink.is_some()),
        Txn::OrderStatusByName { d, name } => {
            let c = by_last_name(&tx, w, *d, name);
            order_status(&tx, w, *d, c, sink.is_some())
        }
        Txn::Delivery { carrier } => {
            for d in 1..=10i64 {
                let Some(o): Option<i64> = one(
                    &tx,
                    "SELECT o_id FROM new_order WHERE w_id = ?1 AND d_id = ?2 ORDER BY o_id LIMIT 1",
                    [w, d],
                ) else {
                    continue;
                };
                let total: f64 = one(
                    &tx,
                    "SELECT sum(amount) FROM order_line WHERE w_id = ?1 AND d_id = ?2 AND o_id = ?3",
                    params![w, d, o],
                )
                .unwrap_or(0.0);
                let c: i64 = one(
                    &tx,
                    "SELECT c_id FROM orders WHERE w_id = ?1 AND d_id = ?2 AND id = ?3",
                    params![w, d, o],
                )
                .unwrap_or(0);
                exec(
                    &tx,
                    "DELETE FROM new_order WHERE w_id = ?1 AND d_id = ?2 AND o_id = ?3",
                    params![w, d, o],
                );
                exec(
                    &tx,
                    "UPDATE orders SET carrier_id = ?4 WHERE w_id = ?1 AND d_id = ?2 AND id = ?3",
                    params![w, d, o, carrier],
                );
                exec(&tx, "UPDATE order_line SET delivery_d = ?4 WHERE w_id = ?1 AND d_id = ?2 AND o_id = ?3", params![w, d, o, h]);
                exec(&tx, "UPDATE customer SET balance = balance + ?4, delivery_cnt = delivery_cnt + 1 WHERE w_id = ?1 AND d_id = ?2 AND id = ?3", params![w, d, c, total]);
                delivered.push(d);
            }
            Vec::new()
        }
        Txn::StockLevel { d, threshold } => {
            let next: i64 = one(
                &tx,
                "SELECT next_o_id FROM district WHERE w_id = ?1 AND id = ?2",
                [w, *d],
            )
            .unwrap_or(0);
            let n: i64 = one(
                &tx,
                "SELECT count(DISTINCT ol.i_id) FROM order_line ol JOIN stock s ON s.w_id = ?1 AND s.i_id = ol.i_id
                 WHERE ol.w_id = ?1 AND ol.d_id = ?2 AND ol.o_id >= ?3 AND ol.o_id < ?4 AND s.quantity < ?5",
                params![w, d, next - 20, next, threshold],
            )
            .unwrap();
            vec![vec![Cell::Int(n)]]
        }
    };
    tx.commit().unwrap();
    if let Some(rows) = sink {
        *rows = out;
    }
    Outcome::Committed(delivered)
}

/// The middle customer of the name by first name, as the example's
/// `by_last_name`; -1 (no customer) when none has it.
fn by_last_name(tx: &Transaction<'_>, w: i64, d: i64, name: &str) -> i64 {
    let mut stmt = tx
        .prepare_cached(
            "SELECT id FROM customer WHERE w_id = ?1 AND d_id = ?2 AND last = ?3 ORDER BY first",
        )
        .unwrap();
    let ids: Vec<i64> = stmt
        .query_map(params![w, d, name], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    ids.len().div_ceil(2).checked_sub(1).map_or(-1, |k| ids[k])
}

/// Order-Status of customer `c`: with `flat`, one row as the example's
/// record flattens: customer, payments, order, lines. rqc keeps the
/// payments as the aggregate `payments_of`; SQLite in the counter column
/// `payment_cnt` (the tenth), by hand, as an application does.
fn order_status(tx: &Transaction<'_>, w: i64, d: i64, c: i64, flat: bool) -> Vec<Vec<Cell>> {
    let customer = row(
        tx,
        "SELECT * FROM customer WHERE w_id = ?1 AND d_id = ?2 AND id = ?3",
        params![w, d, c],
    );
    let order = row(
        tx,
        "SELECT * FROM orders WHERE w_id = ?1 AND d_id = ?2 AND c_id = ?3 ORDER BY id DESC LIMIT 1",
        params![w, d, c],
    );
    let mut lines: Vec<Vec<Sql>> = Vec::new();
    if let Some(Sql::Integer(o)) = order.as_ref().map(|o| &o[2]) {
        let mut stmt = tx
            .prepare_cached("SELECT * FROM order_line WHERE w_id = ?1 AND d_id = ?2 AND o_id = ?3 ORDER BY number")
            .unwrap();
        let mut rows = stmt.query(params![w, d, o]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            lines.push((0..8).map(|k| r.get(k).unwrap()).collect());
        }
    }
    if !flat {
        std::hint::black_box((customer, order, lines));
        return Vec::new();
    }
    const PAYMENT_CNT: usize = 9;
    let mut out = Vec::new();
    match &customer {
        Some(values) => {
            out.extend(
                values
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != PAYMENT_CNT)
                    .map(|(_, v)| sql_cell(v)),
            );
            out.push(sql_cell(&values[PAYMENT_CNT]));
        }
        None => out.extend([Cell::Null, sql_cell(&Sql::Integer(0))]),
    }
    match order {
        Some(values) => out.extend(values.iter().map(sql_cell)),
        None => out.push(Cell::Null),
    }
    out.extend(lines.iter().flatten().map(sql_cell));
    vec![out]
}

fn payment(tx: &Transaction<'_>, w: i64, d: i64, c: i64, amount: f64, h: i64) {
    exec(
        tx,
        "UPDATE warehouse SET ytd = ytd + ?2 WHERE id = ?1",
        params![w, amount],
    );
    exec(
        tx,
        "UPDATE district SET ytd = ytd + ?3 WHERE w_id = ?1 AND id = ?2",
        params![w, d, amount],
    );
    exec(tx, "UPDATE customer SET balance = balance - ?4, ytd_payment = ytd_payment + ?4, payment_cnt = payment_cnt + 1 WHERE w_id = ?1 AND d_id = ?2 AND id = ?3", params![w, d, c, amount]);
    exec(
        tx,
        "INSERT INTO history VALUES (?1, ?2, ?3, ?4, ?2, ?3, ?1, ?5)",
        params![h, w, d, c, amount],
    );
}

/// The tables the consistency conditions read (and Item and Stock, which a
/// rolled-back New-Order must leave as they were), as rqc's `dump` gives them
/// (its table and column names, `Int`, `Float` and null values), read in
/// one transaction, so `tpcc_conditions::check` reads SQLite's rows as it
/// reads rqc's.
// Only the `tpcc` driver (bin/tpcc.rs includes this file) checks SQLite's
// rows; the benchmark's P6 compares answers instead.
#[allow(dead_code)]
pub fn dump(conn: &mut Connection) -> rqc::Dump {
    let mut dump = rqc::Dump::default();
    each_row(conn, &mut |dumped| match dumped {
        rqc::Dumped::Table(name) => dump.tables.push((name.to_string(), Vec::new())),
        rqc::Dumped::Row(row) => {
            if let Some((_, rows)) = dump.tables.last_mut() {
                rows.push(row);
            }
        }
        _ => {}
    });
    dump
}

/// What the consistency conditions read of SQLite's tables, cut to those
/// columns as each row is read (`ReadDump`): a check at W warehouses holds
/// a fraction of the database. (The `tpcc` driver's; rqc-bench's mix
/// compares answers instead.)
#[allow(dead_code)]
pub fn read_dump(conn: &mut Connection) -> rqc::Dump {
    let mut read = rqc_tests::tpcc_conditions::ReadDump::default();
    each_row(conn, &mut |dumped| read.take(dumped));
    read.finish()
}

/// Every table's name, then its rows as records, in one transaction.
fn each_row(conn: &mut Connection, each: &mut dyn FnMut(rqc::Dumped<'_>)) {
    let tx = conn.transaction().unwrap();
    for (name, table) in [
        ("Warehouse", "warehouse"),
        ("District", "district"),
        ("Customer", "customer"),
        ("History", "history"),
        ("Orders", "orders"),
        ("NewOrder", "new_order"),
        ("OrderLine", "order_line"),
        ("Item", "item"),
        ("Stock", "stock"),
    ] {
        each(rqc::Dumped::Table(name));
        let mut stmt = tx.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let mut rows = stmt.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let fields = columns
                .iter()
                .enumerate()
                .map(|(k, column)| {
                    let value = match r.get::<_, Sql>(k).unwrap() {
                        Sql::Integer(n) => Value::Int(n),
                        Sql::Real(x) => Value::Float(x),
                        Sql::Text(s) => Value::Str(s),
                        Sql::Null | Sql::Blob(_) => Value::Null,
                    };
                    (column.clone(), value)
                })
                .collect();
            each(rqc::Dumped::Row(Value::record(fields)));
        }
    }
}
