//! The TPC-C example in SQL: the same nine tables with the same columns
//! and values, the same population, and the five transactions doing what
//! examples/tpcc/tpcc.rq does, step by step, with prepared statements.

use crate::cells::{sql_cell, sql_value, Cell};
use rqc::Value;
use rqc_tests::tpcc::Txn;
use rusqlite::types::Value as Sql;
use rusqlite::{params, Connection, Transaction};

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

/// A database in WAL mode, not synced per commit, holding the population.
pub fn open(
    path: &std::path::Path,
    covering: bool,
    population: &[(&'static str, Vec<Value>)],
) -> Connection {
    let mut conn = crate::social::sqlite_open(path, crate::social::SqliteLine::Default);
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    conn.execute_batch(&schema(covering)).unwrap();
    let tx = conn.transaction().unwrap();
    for (name, args) in population {
        let values: Vec<Sql> = args.iter().map(sql_value).collect();
        tx.prepare_cached(population_sql(name))
            .unwrap()
            .execute(rusqlite::params_from_iter(values))
            .unwrap();
    }
    tx.commit().unwrap();
    // No ANALYZE, as for the reads (see social.rs): statistics would make
    // SQLite re-prepare statements on every binding.
    conn
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

/// Runs transaction number `h` in warehouse 1 as one SQLite transaction;
/// with a sink, hands over what the example's entry returns (a query's
/// result; New-Order's line count), converted only then.
pub fn run(conn: &mut Connection, txn: &Txn, h: i64, sink: Option<&mut Vec<Vec<Cell>>>) {
    let tx = conn.transaction().unwrap();
    let out = match txn {
        Txn::NewOrder { d, c, lines } => {
            let o: i64 = one(
                &tx,
                "SELECT next_o_id FROM district WHERE w_id = 1 AND id = ?1",
                [d],
            )
            .unwrap_or(0);
            exec(
                &tx,
                "UPDATE district SET next_o_id = next_o_id + 1 WHERE w_id = 1 AND id = ?1",
                [d],
            );
            exec(
                &tx,
                "INSERT INTO orders VALUES (1, ?1, ?2, ?3, ?4, NULL, ?5)",
                params![d, o, c, h, lines.len() as i64],
            );
            exec(
                &tx,
                "INSERT INTO new_order VALUES (1, ?1, ?2)",
                params![d, o],
            );
            for (number, (i, q)) in (1i64..).zip(lines) {
                let price: f64 =
                    one(&tx, "SELECT price FROM item WHERE id = ?1", [i]).unwrap_or(0.0);
                exec(
                    &tx,
                    "UPDATE stock SET quantity = CASE WHEN quantity - ?2 >= 10 THEN quantity - ?2 \
                     ELSE quantity - ?2 + 91 END WHERE w_id = 1 AND i_id = ?1",
                    params![i, q],
                );
                // The amount in floating point, as rqc's `price * float(q)`.
                exec(
                    &tx,
                    "INSERT INTO order_line VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, NULL)",
                    params![d, o, number, i, q, price * *q as f64],
                );
            }
            vec![vec![Cell::Int(lines.len() as i64)]]
        }
        Txn::Payment { d, c, amount } => {
            payment(&tx, *d, *c, *amount, h);
            Vec::new()
        }
        Txn::PaymentByName { d, name, amount } => {
            // The middle customer of the name by first name, as the example's by_last_name.
            let mut stmt = tx
                .prepare_cached("SELECT id FROM customer WHERE w_id = 1 AND d_id = ?1 AND last = ?2 ORDER BY first")
                .unwrap();
            let ids: Vec<i64> = stmt
                .query_map(params![d, name], |r| r.get(0))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            drop(stmt);
            let c = ids.len().div_ceil(2).checked_sub(1).map_or(-1, |k| ids[k]);
            payment(&tx, *d, c, *amount, h);
            Vec::new()
        }
        Txn::OrderStatus { d, c } => {
            let customer = row(
                &tx,
                "SELECT * FROM customer WHERE w_id = 1 AND d_id = ?1 AND id = ?2",
                params![d, c],
            );
            let order = row(&tx, "SELECT * FROM orders WHERE w_id = 1 AND d_id = ?1 AND c_id = ?2 ORDER BY id DESC LIMIT 1", params![d, c]);
            let mut lines: Vec<Vec<Sql>> = Vec::new();
            if let Some(Sql::Integer(o)) = order.as_ref().map(|o| &o[2]) {
                let mut stmt = tx
                    .prepare_cached("SELECT * FROM order_line WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2 ORDER BY number")
                    .unwrap();
                let mut rows = stmt.query(params![d, o]).unwrap();
                while let Some(r) = rows.next().unwrap() {
                    lines.push((0..8).map(|k| r.get(k).unwrap()).collect());
                }
            }
            match sink.is_some() {
                // One row as the example's record flattens: customer,
                // payments, order, lines. rqc keeps the payments as the
                // aggregate `payments_of`; SQLite in the counter column
                // `payment_cnt` (the tenth), by hand, as an application does.
                true => {
                    const PAYMENT_CNT: usize = 9;
                    let mut flat = Vec::new();
                    match &customer {
                        Some(values) => {
                            flat.extend(
                                values
                                    .iter()
                                    .enumerate()
                                    .filter(|(k, _)| *k != PAYMENT_CNT)
                                    .map(|(_, v)| sql_cell(v)),
                            );
                            flat.push(sql_cell(&values[PAYMENT_CNT]));
                        }
                        None => flat.extend([Cell::Null, sql_cell(&Sql::Integer(0))]),
                    }
                    match order {
                        Some(values) => flat.extend(values.iter().map(sql_cell)),
                        None => flat.push(Cell::Null),
                    }
                    flat.extend(lines.iter().flatten().map(sql_cell));
                    vec![flat]
                }
                false => {
                    std::hint::black_box((customer, order, lines));
                    Vec::new()
                }
            }
        }
        Txn::Delivery { carrier } => {
            let mut delivered = 0;
            for d in 1..=10i64 {
                let Some(o): Option<i64> = one(
                    &tx,
                    "SELECT o_id FROM new_order WHERE w_id = 1 AND d_id = ?1 ORDER BY o_id LIMIT 1",
                    [d],
                ) else {
                    continue;
                };
                let total: f64 = one(
                    &tx,
                    "SELECT sum(amount) FROM order_line WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2",
                    params![d, o],
                )
                .unwrap_or(0.0);
                let c: i64 = one(
                    &tx,
                    "SELECT c_id FROM orders WHERE w_id = 1 AND d_id = ?1 AND id = ?2",
                    params![d, o],
                )
                .unwrap_or(0);
                exec(
                    &tx,
                    "DELETE FROM new_order WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2",
                    params![d, o],
                );
                exec(
                    &tx,
                    "UPDATE orders SET carrier_id = ?3 WHERE w_id = 1 AND d_id = ?1 AND id = ?2",
                    params![d, o, carrier],
                );
                exec(&tx, "UPDATE order_line SET delivery_d = ?3 WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2", params![d, o, h]);
                exec(&tx, "UPDATE customer SET balance = balance + ?3, delivery_cnt = delivery_cnt + 1 WHERE w_id = 1 AND d_id = ?1 AND id = ?2", params![d, c, total]);
                delivered += 1;
            }
            std::hint::black_box(delivered);
            Vec::new()
        }
        Txn::StockLevel { d, threshold } => {
            let next: i64 = one(
                &tx,
                "SELECT next_o_id FROM district WHERE w_id = 1 AND id = ?1",
                [d],
            )
            .unwrap_or(0);
            let n: i64 = one(
                &tx,
                "SELECT count(DISTINCT ol.i_id) FROM order_line ol JOIN stock s ON s.w_id = 1 AND s.i_id = ol.i_id
                 WHERE ol.w_id = 1 AND ol.d_id = ?1 AND ol.o_id >= ?2 AND ol.o_id < ?3 AND s.quantity < ?4",
                params![d, next - 20, next, threshold],
            )
            .unwrap();
            vec![vec![Cell::Int(n)]]
        }
    };
    tx.commit().unwrap();
    if let Some(rows) = sink {
        *rows = out;
    }
}

fn payment(tx: &Transaction<'_>, d: i64, c: i64, amount: f64, h: i64) {
    exec(
        tx,
        "UPDATE warehouse SET ytd = ytd + ?1 WHERE id = 1",
        [amount],
    );
    exec(
        tx,
        "UPDATE district SET ytd = ytd + ?2 WHERE w_id = 1 AND id = ?1",
        params![d, amount],
    );
    exec(tx, "UPDATE customer SET balance = balance - ?3, ytd_payment = ytd_payment + ?3, payment_cnt = payment_cnt + 1 WHERE w_id = 1 AND d_id = ?1 AND id = ?2", params![d, c, amount]);
    exec(
        tx,
        "INSERT INTO history VALUES (?1, 1, ?2, ?3, 1, ?2, ?1, ?4)",
        params![h, d, c, amount],
    );
}
