//! TPC-C's consistency conditions (clause 3.3.2, conditions 1 to 12),
//! checked on the rows a `dump` reads: written against the specification,
//! from the rows alone, never from rqc's aggregates or its answers.

use crate::tpcc::Scale;
use rqc_plan::Value;
use rqc_runtime::dump::{Dump, Dumped};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One condition that does not hold, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The clause, `3.3.2.1` to `3.3.2.12` (or `2.4.2.2`: line numbers).
    pub clause: &'static str,
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.clause, self.what)
    }
}

/// The orders Delivery transactions delivered since the population, by
/// district `(w, d)`: condition 11's 2,100 grows by one with each.
#[derive(Clone, Debug, Default)]
pub struct Deliveries(pub BTreeMap<(i64, i64), i64>);

impl Deliveries {
    /// Counts what one Delivery in warehouse `w` answered: its rows are
    /// `{ district, order }`, one per order it delivered.
    pub fn record(&mut self, w: i64, delivered: &[Value]) {
        for one in delivered {
            *self.0.entry((w, int(one, "district"))).or_default() += 1;
        }
    }
}

/// A sum of money (`Float`) and what bounds its rounding. Two sums of the
/// same amounts, each computed in its own order and grouping (the
/// database's running `+=` in commit order, Delivery's `sum()` of a order's
/// lines, this checker's loop), are equal in exact arithmetic; any
/// summation of n terms errs from the exact sum by at most
/// (n - 1)·u·Σ|x| with u = 2^-53 (Higham, "Accuracy and Stability of
/// Numerical Algorithms", §4.2), so the two differ by at most
/// 2·n·u·Σ|x|. A difference beyond that is a lost or doubled amount, not
/// rounding; at this crate's scales the bound stays far below a cent.
#[derive(Clone, Copy, Debug, Default)]
struct Money {
    total: f64,
    magnitude: f64,
    terms: u64,
}

impl Money {
    fn add(&mut self, x: f64) {
        self.total += x;
        self.magnitude += x.abs();
        self.terms += 1;
    }

    fn and(self, other: Money) -> Money {
        Money {
            total: self.total + other.total,
            magnitude: self.magnitude + other.magnitude,
            terms: self.terms + other.terms,
        }
    }

    fn tolerance(&self) -> f64 {
        2.0 * (self.terms + 1) as f64 * (f64::EPSILON / 2.0) * self.magnitude
    }

    /// Whether `value` equals `expected` to within the rounding of the
    /// amounts `self` counts.
    fn equal(&self, value: f64, expected: f64) -> bool {
        (value - expected).abs() <= self.tolerance()
    }
}

/// The columns the conditions read, by table: a dump of these alone is
/// all [`check`] needs (Stock and Item are read by none). A column left
/// out and read makes the check panic, naming it: never a wrong verdict.
pub const READ: &[(&str, &[&str])] = &[
    ("Warehouse", &["id", "ytd"]),
    ("District", &["w_id", "id", "ytd", "next_o_id"]),
    (
        "Customer",
        &["w_id", "d_id", "id", "balance", "ytd_payment"],
    ),
    (
        "History",
        &["w_id", "d_id", "c_w_id", "c_d_id", "c_id", "amount"],
    ),
    (
        "Orders",
        &["w_id", "d_id", "id", "c_id", "ol_cnt", "carrier_id"],
    ),
    ("NewOrder", &["w_id", "d_id", "o_id"]),
    (
        "OrderLine",
        &["w_id", "d_id", "o_id", "number", "amount", "delivery_d"],
    ),
];

/// Gathers a dump of what the conditions read from rows handed over one
/// at a time (`Database::dump_each`): the tables of [`READ`], each row
/// cut to its columns there, so a check at W warehouses holds a fraction
/// of the database (a whole dump held every column of every table).
#[derive(Default)]
pub struct ReadDump {
    dump: Dump,
    /// The columns kept of the table whose rows come now, or `None` for a
    /// table the conditions do not read.
    columns: Option<&'static [&'static str]>,
}

impl ReadDump {
    /// What `Database::dump_each` hands over, in turn.
    pub fn take(&mut self, dumped: Dumped<'_>) {
        match dumped {
            Dumped::Table(table) => self.table(table),
            Dumped::Row(row) => self.row(row),
            Dumped::Problem(problem) => self.dump.problems.push(problem),
            Dumped::KeyCounter(..) => {}
        }
    }

    /// The rows that follow are `table`'s.
    fn table(&mut self, table: &str) {
        self.columns = READ.iter().find(|(t, _)| *t == table).map(|(_, c)| *c);
        if self.columns.is_some() {
            self.dump.tables.push((table.to_string(), Vec::new()));
        }
    }

    /// A row of the current table, kept cut to the columns read.
    fn row(&mut self, row: Value) {
        let (Some(columns), Some((_, rows))) = (self.columns, self.dump.tables.last_mut()) else {
            return;
        };
        let kept = columns
            .iter()
            .map(|&c| (c.to_string(), field(&row, c).clone()))
            .collect();
        rows.push(Value::record(kept));
    }

    pub fn finish(self) -> Dump {
        self.dump
    }
}

/// What the conditions read of `db`, one committed state, a chunk of rows
/// at a time ([`ReadDump`]).
pub fn read_dump(db: &rqc::Database) -> Result<Dump, rqc::Error> {
    let mut read = ReadDump::default();
    db.dump_each(|dumped| {
        read.take(dumped);
        Ok(())
    })?;
    Ok(read.finish())
}

fn field<'a>(row: &'a Value, name: &str) -> &'a Value {
    row.field(name)
        .unwrap_or_else(|| panic!("no field `{name}` in {row:?}"))
}

/// The `Int` field `name` of a dumped row (a panic names a field that is
/// missing or of another type).
pub fn int(row: &Value, name: &str) -> i64 {
    match field(row, name) {
        Value::Int(n) => *n,
        other => panic!("`{name}` is not an Int: {other:?}"),
    }
}

fn float(row: &Value, name: &str) -> f64 {
    match field(row, name) {
        Value::Float(x) => *x,
        other => panic!("`{name}` is not a Float: {other:?}"),
    }
}

fn is_null(row: &Value, name: &str) -> bool {
    matches!(field(row, name), Value::Null)
}

fn table<'a>(dump: &'a Dump, name: &str) -> &'a [Value] {
    dump.tables
        .iter()
        .find(|(table, _)| table == name)
        .map(|(_, rows)| rows.as_slice())
        .unwrap_or_else(|| panic!("the dump has no table `{name}`"))
}

type District = (i64, i64);
type Order = (i64, i64, i64);

/// Every condition of clause 3.3.2 on the database `dump` read, at
/// `scale`, after `deliveries`; the violations found (none when it is
/// consistent). A dump that could not read everything is a violation of
/// each condition it might hide.
pub fn check(dump: &Dump, scale: Scale, deliveries: &Deliveries) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut fail = |clause: &'static str, what: String| out.push(Violation { clause, what });
    for problem in &dump.problems {
        fail("3.3.2", format!("the dump could not read: {problem}"));
    }
    let warehouses = table(dump, "Warehouse");
    let districts = table(dump, "District");
    let customers = table(dump, "Customer");
    let history = table(dump, "History");
    let orders = table(dump, "Orders");
    let new_orders = table(dump, "NewOrder");
    let lines = table(dump, "OrderLine");

    // The sums each condition compares with, from the rows.
    let mut paid_to_warehouse: BTreeMap<i64, Money> = BTreeMap::new();
    let mut paid_to_district: BTreeMap<District, Money> = BTreeMap::new();
    let mut paid_by_customer: BTreeMap<Order, Money> = BTreeMap::new();
    for h in history {
        let amount = float(h, "amount");
        let (w, d) = (int(h, "w_id"), int(h, "d_id"));
        paid_to_warehouse.entry(w).or_default().add(amount);
        paid_to_district.entry((w, d)).or_default().add(amount);
        let customer = (int(h, "c_w_id"), int(h, "c_d_id"), int(h, "c_id"));
        paid_by_customer.entry(customer).or_default().add(amount);
    }
    let order_of = |row: &Value, id: &str| (int(row, "w_id"), int(row, "d_id"), int(row, id));
    let by_order: BTreeMap<Order, &Value> = orders.iter().map(|o| (order_of(o, "id"), o)).collect();
    let new_order_ids: BTreeSet<Order> = new_orders.iter().map(|n| order_of(n, "o_id")).collect();
    let mut lines_of: BTreeMap<Order, Vec<&Value>> = BTreeMap::new();
    for line in lines {
        lines_of
            .entry(order_of(line, "o_id"))
            .or_default()
            .push(line);
    }

    let mut d_ytd_of_warehouse: BTreeMap<i64, f64> = BTreeMap::new();
    for district in districts {
        let key @ (w, d) = (int(district, "w_id"), int(district, "id"));
        let ytd = float(district, "ytd");
        *d_ytd_of_warehouse.entry(w).or_default() += ytd;
        let span = (w, d, i64::MIN)..=(w, d, i64::MAX);
        let o_ids: Vec<i64> = by_order.range(span.clone()).map(|(o, _)| o.2).collect();
        let no_ids: Vec<i64> = new_order_ids.range(span.clone()).map(|o| o.2).collect();
        let next_o_id = int(district, "next_o_id");
        // 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID).
        if o_ids.iter().max() != Some(&(next_o_id - 1)) {
            fail(
                "3.3.2.2",
                format!(
                    "{w}/{d}: D_NEXT_O_ID - 1 = {} but max(O_ID) = {:?}",
                    next_o_id - 1,
                    o_ids.iter().max()
                ),
            );
        }
        if let Some(max_no) = no_ids.iter().max().filter(|&&m| m != next_o_id - 1) {
            fail(
                "3.3.2.2",
                format!(
                    "{w}/{d}: D_NEXT_O_ID - 1 = {} but max(NO_O_ID) = {max_no}",
                    next_o_id - 1
                ),
            );
        }
        // 3: max(NO_O_ID) - min(NO_O_ID) + 1 = the district's NEW-ORDER rows.
        if let (Some(min), Some(max)) = (no_ids.iter().min(), no_ids.iter().max()) {
            if max - min + 1 != no_ids.len() as i64 {
                fail(
                    "3.3.2.3",
                    format!(
                        "{w}/{d}: new orders {min}..={max} but {} rows",
                        no_ids.len()
                    ),
                );
            }
        }
        // 4: sum(O_OL_CNT) = the district's ORDER-LINE rows.
        let ol_cnt: i64 = by_order
            .range(span.clone())
            .map(|(_, o)| int(o, "ol_cnt"))
            .sum();
        let line_rows: usize = lines_of.range(span).map(|(_, l)| l.len()).sum();
        if ol_cnt != line_rows as i64 {
            fail(
                "3.3.2.4",
                format!("{w}/{d}: sum(O_OL_CNT) = {ol_cnt} but {line_rows} ORDER-LINE rows"),
            );
        }
        // 9: D_YTD = sum(H_AMOUNT) of the district's payments.
        let paid = paid_to_district.get(&key).copied().unwrap_or_default();
        if !paid.equal(ytd, paid.total) {
            fail(
                "3.3.2.9",
                format!("{w}/{d}: D_YTD = {ytd} but sum(H_AMOUNT) = {}", paid.total),
            );
        }
        // 11: count(ORDER) - count(NEW-ORDER) = 2,100 (at 3,000 customers:
        // the delivered initial orders) plus the orders Delivery delivered.
        let delivered = scale.delivered_orders() + deliveries.0.get(&key).copied().unwrap_or(0);
        if o_ids.len() as i64 - no_ids.len() as i64 != delivered {
            fail(
                "3.3.2.11",
                format!(
                    "{w}/{d}: {} orders - {} new orders, but {delivered} delivered",
                    o_ids.len(),
                    no_ids.len()
                ),
            );
        }
    }

    for warehouse in warehouses {
        let w = int(warehouse, "id");
        let ytd = float(warehouse, "ytd");
        let paid = paid_to_warehouse.get(&w).copied().unwrap_or_default();
        // 1: W_YTD = sum(D_YTD); each D_YTD sums the district's payments.
        let districts_ytd = d_ytd_of_warehouse.get(&w).copied().unwrap_or(0.0);
        if !paid.equal(ytd, districts_ytd) {
            fail(
                "3.3.2.1",
                format!("{w}: W_YTD = {ytd} but sum(D_YTD) = {districts_ytd}"),
            );
        }
        // 8: W_YTD = sum(H_AMOUNT) of the warehouse's payments.
        if !paid.equal(ytd, paid.total) {
            fail(
                "3.3.2.8",
                format!("{w}: W_YTD = {ytd} but sum(H_AMOUNT) = {}", paid.total),
            );
        }
    }

    let mut delivered_to: BTreeMap<Order, Money> = BTreeMap::new();
    for (&key, order) in &by_order {
        let (w, d, o) = key;
        let carrier_null = is_null(order, "carrier_id");
        // 5: O_CARRIER_ID is null exactly when a NEW-ORDER row exists.
        if carrier_null != new_order_ids.contains(&key) {
            fail(
                "3.3.2.5",
                format!(
                    "{w}/{d}/{o}: O_CARRIER_ID null is {carrier_null}, NEW-ORDER row is {}",
                    !carrier_null
                ),
            );
        }
        let its_lines = lines_of.get(&key).map_or(&[][..], |l| l.as_slice());
        // 6: O_OL_CNT = the order's ORDER-LINE rows.
        let ol_cnt = int(order, "ol_cnt");
        if ol_cnt != its_lines.len() as i64 {
            fail(
                "3.3.2.6",
                format!(
                    "{w}/{d}/{o}: O_OL_CNT = {ol_cnt} but {} lines",
                    its_lines.len()
                ),
            );
        }
        // 2.4.2.2: OL_NUMBER runs from 1 to O_OL_CNT.
        let numbers: BTreeSet<i64> = its_lines.iter().map(|l| int(l, "number")).collect();
        if numbers != (1..=ol_cnt).collect::<BTreeSet<i64>>() {
            fail(
                "2.4.2.2",
                format!("{w}/{d}/{o}: lines numbered {numbers:?}, not 1..={ol_cnt}"),
            );
        }
        let customer = (w, d, int(order, "c_id"));
        for line in its_lines {
            // 7: OL_DELIVERY_D is null exactly when O_CARRIER_ID is.
            if is_null(line, "delivery_d") != carrier_null {
                fail(
                    "3.3.2.7",
                    format!(
                        "{w}/{d}/{o}/{}: OL_DELIVERY_D null is {}",
                        int(line, "number"),
                        !carrier_null
                    ),
                );
            }
            if !is_null(line, "delivery_d") {
                delivered_to
                    .entry(customer)
                    .or_default()
                    .add(float(line, "amount"));
            }
        }
    }
    for (key, _) in lines_of.iter().filter(|(o, _)| !by_order.contains_key(o)) {
        fail("3.3.2.6", format!("{key:?}: ORDER-LINE rows of no order"));
    }
    for key in new_order_ids.iter().filter(|o| !by_order.contains_key(o)) {
        fail("3.3.2.5", format!("{key:?}: a NEW-ORDER row of no order"));
    }

    for customer in customers {
        let key @ (w, d, c) = (
            int(customer, "w_id"),
            int(customer, "d_id"),
            int(customer, "id"),
        );
        let balance = float(customer, "balance");
        let paid = paid_by_customer.get(&key).copied().unwrap_or_default();
        let delivered = delivered_to.get(&key).copied().unwrap_or_default();
        // 10: C_BALANCE = sum(OL_AMOUNT of its delivered orders) - sum(H_AMOUNT).
        if !delivered
            .and(paid)
            .equal(balance, delivered.total - paid.total)
        {
            fail(
                "3.3.2.10",
                format!(
                    "{w}/{d}/{c}: C_BALANCE = {balance} but delivered {} - paid {}",
                    delivered.total, paid.total
                ),
            );
        }
        // 12: C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT of its delivered
        // orders); C_YTD_PAYMENT sums the same payments once more.
        let ytd_payment = float(customer, "ytd_payment");
        if !delivered
            .and(paid)
            .and(paid)
            .equal(balance + ytd_payment, delivered.total)
        {
            fail(
                "3.3.2.12",
                format!(
                    "{w}/{d}/{c}: C_BALANCE + C_YTD_PAYMENT = {} but delivered {}",
                    balance + ytd_payment,
                    delivered.total
                ),
            );
        }
    }
    out
}
