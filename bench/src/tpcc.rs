//! P6: the TPC-C mix on one warehouse (scaled down), in rqc and in SQLite
//! with the same five transactions in SQL: transactions per minute.

use rqc::{Backend, Database, OpenOptions, Value};
use rqc_tests::tpcc::Txn;
use rusqlite::{params, Connection};
use std::path::Path;
use std::time::Instant;

pub const CUSTOMERS: i64 = 30;
pub const ITEMS: i64 = 1000;

pub fn rqc_run(dir: &Path, txns: &[Txn], population: &[(&'static str, Vec<Value>)]) -> f64 {
    rqc_run_on(dir, Backend::Redb, txns, population)
}

/// The mix on a database of `backend`.
pub fn rqc_run_on(
    dir: &Path,
    backend: Backend,
    txns: &[Txn],
    population: &[(&'static str, Vec<Value>)],
) -> f64 {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            flush_on_commit: false,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc")])
        .unwrap();
    let run = |name: &str, args: Vec<Value>| {
        db.run(name, &args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    };
    for (name, args) in population {
        run(name, args.clone());
    }
    let start = Instant::now();
    for (h, txn) in txns.iter().enumerate() {
        let (name, args) = txn.call(1, h as i64);
        run(name, args);
    }
    txns.len() as f64 / start.elapsed().as_secs_f64() * 60.0
}

pub fn sqlite_run(path: &Path, txns: &[Txn], population: &[(&'static str, Vec<Value>)]) -> f64 {
    let mut conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;
         CREATE TABLE warehouse (id INTEGER PRIMARY KEY, ytd REAL NOT NULL);
         CREATE TABLE district (w_id INTEGER, id INTEGER, ytd REAL NOT NULL, next_o_id INTEGER NOT NULL, PRIMARY KEY (w_id, id)) WITHOUT ROWID;
         CREATE TABLE customer (w_id INTEGER, d_id INTEGER, id INTEGER, first TEXT, last TEXT, balance REAL, ytd_payment REAL,
                                payment_cnt INTEGER, delivery_cnt INTEGER, PRIMARY KEY (w_id, d_id, id)) WITHOUT ROWID;
         CREATE INDEX customer_by_last ON customer (w_id, d_id, last, first);
         CREATE TABLE history (id INTEGER PRIMARY KEY, c_w_id INTEGER, c_d_id INTEGER, c_id INTEGER, w_id INTEGER, d_id INTEGER, date INTEGER, amount REAL);
         CREATE TABLE orders (w_id INTEGER, d_id INTEGER, id INTEGER, c_id INTEGER, entry_d INTEGER, carrier_id INTEGER, ol_cnt INTEGER,
                              PRIMARY KEY (w_id, d_id, id)) WITHOUT ROWID;
         CREATE INDEX orders_by_customer ON orders (w_id, d_id, c_id, id DESC);
         CREATE TABLE new_order (w_id INTEGER, d_id INTEGER, o_id INTEGER, PRIMARY KEY (w_id, d_id, o_id)) WITHOUT ROWID;
         CREATE TABLE order_line (w_id INTEGER, d_id INTEGER, o_id INTEGER, number INTEGER, i_id INTEGER, quantity INTEGER, amount REAL,
                                  delivery_d INTEGER, PRIMARY KEY (w_id, d_id, o_id, number)) WITHOUT ROWID;
         CREATE TABLE item (id INTEGER PRIMARY KEY, price REAL);
         CREATE TABLE stock (w_id INTEGER, i_id INTEGER, quantity INTEGER, PRIMARY KEY (w_id, i_id)) WITHOUT ROWID;",
    )
    .unwrap();
    {
        let tx = conn.transaction().unwrap();
        for (name, args) in population {
            let values: Vec<rusqlite::types::Value> = args.iter().map(sql_value).collect();
            let sql = match *name {
                "add_item" => "INSERT INTO item VALUES (?1, ?2)",
                "add_warehouse" => "INSERT INTO warehouse VALUES (?1, 300000.0)",
                "add_stock" => "INSERT INTO stock VALUES (?1, ?2, ?3)",
                "add_district" => "INSERT INTO district VALUES (?1, ?2, 30000.0, ?3)",
                "add_customer" => {
                    "INSERT INTO customer VALUES (?1, ?2, ?3, ?4, ?5, -10.0, 10.0, 1, 0)"
                }
                "add_order" => "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                "add_order_line" => {
                    "INSERT INTO order_line VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                }
                "add_new_order" => "INSERT INTO new_order VALUES (?1, ?2, ?3)",
                other => panic!("no SQL for {other}"),
            };
            tx.prepare_cached(sql)
                .unwrap()
                .execute(rusqlite::params_from_iter(values))
                .unwrap();
        }
        tx.commit().unwrap();
    }
    let start = Instant::now();
    for (h, txn) in txns.iter().enumerate() {
        let h = h as i64;
        let tx = conn.transaction().unwrap();
        match txn {
            Txn::NewOrder { d, c, lines } => {
                let o: i64 = tx
                    .prepare_cached("SELECT next_o_id FROM district WHERE w_id = 1 AND id = ?1")
                    .unwrap()
                    .query_row([d], |r| r.get(0))
                    .unwrap();
                tx.prepare_cached("UPDATE district SET next_o_id = ?2 WHERE w_id = 1 AND id = ?1")
                    .unwrap()
                    .execute(params![d, o + 1])
                    .unwrap();
                tx.prepare_cached("INSERT INTO orders VALUES (1, ?1, ?2, ?3, ?4, NULL, ?5)")
                    .unwrap()
                    .execute(params![d, o, c, h, lines.len() as i64])
                    .unwrap();
                tx.prepare_cached("INSERT INTO new_order VALUES (1, ?1, ?2)")
                    .unwrap()
                    .execute(params![d, o])
                    .unwrap();
                for (i, q) in lines {
                    let price: f64 = tx
                        .prepare_cached("SELECT price FROM item WHERE id = ?1")
                        .unwrap()
                        .query_row([i], |r| r.get(0))
                        .unwrap();
                    let s: i64 = tx
                        .prepare_cached("SELECT quantity FROM stock WHERE w_id = 1 AND i_id = ?1")
                        .unwrap()
                        .query_row([i], |r| r.get(0))
                        .unwrap();
                    let left = if s - q >= 10 { s - q } else { s - q + 91 };
                    tx.prepare_cached(
                        "UPDATE stock SET quantity = ?2 WHERE w_id = 1 AND i_id = ?1",
                    )
                    .unwrap()
                    .execute(params![i, left])
                    .unwrap();
                    tx.prepare_cached(
                        "INSERT INTO order_line VALUES (1, ?1, ?2, ?3, ?3, ?4, ?5, NULL)",
                    )
                    .unwrap()
                    .execute(params![d, o, i, q, price])
                    .unwrap();
                }
            }
            Txn::Payment { d, c, amount } => sql_payment(&tx, *d, *c, *amount, h),
            Txn::PaymentByName { d, name, amount } => {
                let ids: Vec<i64> = tx
                    .prepare_cached("SELECT id FROM customer WHERE w_id = 1 AND d_id = ?1 AND last = ?2 ORDER BY first")
                    .unwrap()
                    .query_map(params![d, name], |r| r.get(0))
                    .unwrap()
                    .map(|r| r.unwrap())
                    .collect();
                if let Some(c) = ids.get(ids.len().div_ceil(2) - 1) {
                    sql_payment(&tx, *d, *c, *amount, h);
                }
            }
            Txn::OrderStatus { d, c } => {
                let _: Option<f64> = tx
                    .prepare_cached(
                        "SELECT balance FROM customer WHERE w_id = 1 AND d_id = ?1 AND id = ?2",
                    )
                    .unwrap()
                    .query_row(params![d, c], |r| r.get(0))
                    .ok();
                let last: Option<i64> = tx.prepare_cached("SELECT id FROM orders WHERE w_id = 1 AND d_id = ?1 AND c_id = ?2 ORDER BY id DESC LIMIT 1").unwrap().query_row(params![d, c], |r| r.get(0)).ok();
                if let Some(o) = last {
                    let n = tx.prepare_cached("SELECT i_id FROM order_line WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2").unwrap().query_map(params![d, o], |r| r.get::<_, i64>(0)).unwrap().count();
                    std::hint::black_box(n);
                }
            }
            Txn::Delivery { carrier } => {
                for d in 1..=10i64 {
                    let o: Option<i64> = tx.prepare_cached("SELECT o_id FROM new_order WHERE w_id = 1 AND d_id = ?1 ORDER BY o_id LIMIT 1").unwrap().query_row([d], |r| r.get(0)).ok();
                    let Some(o) = o else { continue };
                    tx.prepare_cached(
                        "DELETE FROM new_order WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2",
                    )
                    .unwrap()
                    .execute(params![d, o])
                    .unwrap();
                    let c: i64 = tx
                        .prepare_cached(
                            "SELECT c_id FROM orders WHERE w_id = 1 AND d_id = ?1 AND id = ?2",
                        )
                        .unwrap()
                        .query_row(params![d, o], |r| r.get(0))
                        .unwrap();
                    tx.prepare_cached("UPDATE orders SET carrier_id = ?3 WHERE w_id = 1 AND d_id = ?1 AND id = ?2").unwrap().execute(params![d, o, carrier]).unwrap();
                    tx.prepare_cached("UPDATE order_line SET delivery_d = ?3 WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2").unwrap().execute(params![d, o, h]).unwrap();
                    let total: f64 = tx.prepare_cached("SELECT sum(amount) FROM order_line WHERE w_id = 1 AND d_id = ?1 AND o_id = ?2").unwrap().query_row(params![d, o], |r| r.get(0)).unwrap();
                    tx.prepare_cached("UPDATE customer SET balance = balance + ?3, delivery_cnt = delivery_cnt + 1 WHERE w_id = 1 AND d_id = ?1 AND id = ?2").unwrap().execute(params![d, c, total]).unwrap();
                }
            }
            Txn::StockLevel { d, threshold } => {
                let next: i64 = tx
                    .prepare_cached("SELECT next_o_id FROM district WHERE w_id = 1 AND id = ?1")
                    .unwrap()
                    .query_row([d], |r| r.get(0))
                    .unwrap();
                let n: i64 = tx
                    .prepare_cached(
                        "SELECT count(DISTINCT ol.i_id) FROM order_line ol JOIN stock s ON s.w_id = 1 AND s.i_id = ol.i_id
                         WHERE ol.w_id = 1 AND ol.d_id = ?1 AND ol.o_id >= ?2 AND ol.o_id < ?3 AND s.quantity < ?4",
                    )
                    .unwrap()
                    .query_row(params![d, next - 20, next, threshold], |r| r.get(0))
                    .unwrap();
                std::hint::black_box(n);
            }
        }
        tx.commit().unwrap();
    }
    txns.len() as f64 / start.elapsed().as_secs_f64() * 60.0
}

fn sql_value(v: &Value) -> rusqlite::types::Value {
    match v {
        Value::Int(n) => rusqlite::types::Value::Integer(*n),
        Value::Float(x) => rusqlite::types::Value::Real(*x),
        Value::Str(s) => rusqlite::types::Value::Text(s.clone()),
        _ => rusqlite::types::Value::Null,
    }
}

fn sql_payment(tx: &rusqlite::Transaction<'_>, d: i64, c: i64, amount: f64, h: i64) {
    tx.prepare_cached("UPDATE warehouse SET ytd = ytd + ?1 WHERE id = 1")
        .unwrap()
        .execute([amount])
        .unwrap();
    tx.prepare_cached("UPDATE district SET ytd = ytd + ?2 WHERE w_id = 1 AND id = ?1")
        .unwrap()
        .execute(params![d, amount])
        .unwrap();
    tx.prepare_cached("UPDATE customer SET balance = balance - ?3, ytd_payment = ytd_payment + ?3, payment_cnt = payment_cnt + 1 WHERE w_id = 1 AND d_id = ?1 AND id = ?2")
        .unwrap()
        .execute(params![d, c, amount])
        .unwrap();
    tx.prepare_cached("INSERT INTO history VALUES (?1, 1, ?2, ?3, 1, ?2, ?1, ?4)")
        .unwrap()
        .execute(params![h, d, c, amount])
        .unwrap();
}
