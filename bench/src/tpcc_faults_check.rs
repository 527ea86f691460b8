//! What `tpcc-faults` checks after each round: the terminals' logs read (a line cut by the kill read as never written), what they acknowledged gathered over rounds, and each acknowledged transaction looked for in the database beside the consistency conditions and `verify`.

use rqc::{Database, Value};
use rqc_tests::tpcc::Scale;
pub use rqc_tests::tpcc_conditions::int;
use rqc_tests::tpcc_conditions::{check, Deliveries};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One transaction a terminal logged: what it was, and its answer when
/// acknowledged (`None` when the kill came first).
pub struct Logged {
    pub name: String,
    pub w: i64,
    pub h: i64,
    pub answer: Option<Vec<String>>,
}

pub fn read_log(path: &Path) -> Vec<Logged> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out: Vec<Logged> = Vec::new();
    // A line cut by the kill has no newline: it was never acknowledged.
    let whole = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    for line in whole.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        let number = |s: &str| {
            s.parse::<i64>()
                .unwrap_or_else(|_| panic!("log line {line}"))
        };
        match parts[..] {
            ["S", name, w, h] => out.push(Logged {
                name: name.to_string(),
                w: number(w),
                h: number(h),
                answer: None,
            }),
            ["A", h, ref rest @ ..] => {
                let last = out.last_mut().expect("an answer after its start");
                assert_eq!(last.h, number(h), "log line {line}");
                last.answer = Some(rest.iter().map(|s| s.to_string()).collect());
            }
            _ => panic!("log line {line}"),
        }
    }
    out
}

/// Everything acknowledged so far, over rounds, and the Deliveries.
#[derive(Default)]
pub struct Acknowledged {
    pub orders: BTreeSet<i64>,
    pub refused: BTreeSet<i64>,
    pub payments: BTreeSet<i64>,
    pub refused_payments: BTreeSet<i64>,
    /// Delivered orders `(w, d, o)` that Deliveries answered.
    pub delivered: BTreeSet<(i64, i64, i64)>,
    pub deliveries: Deliveries,
    /// Deliveries killed before their answer: `h` and warehouse.
    pub unanswered_deliveries: Vec<(i64, i64)>,
    pub transactions: u64,
    pub unanswered: u64,
}

impl Acknowledged {
    pub fn take(&mut self, logged: Vec<Logged>) {
        for one in logged {
            let Some(answer) = one.answer else {
                self.unanswered += 1;
                if one.name == "delivery" {
                    self.unanswered_deliveries.push((one.h, one.w));
                }
                continue;
            };
            self.transactions += 1;
            match (one.name.as_str(), answer.first().map(String::as_str)) {
                ("new_order", Some("refused")) => {
                    self.refused.insert(one.h);
                }
                ("new_order", _) => {
                    self.orders.insert(one.h);
                }
                ("payment" | "payment_by_name", Some("refused")) => {
                    self.refused_payments.insert(one.h);
                }
                ("payment" | "payment_by_name", _) => {
                    self.payments.insert(one.h);
                }
                ("delivery", Some("refused")) => {}
                ("delivery", _) => {
                    for pair in answer.chunks(2) {
                        let n = |s: &String| s.parse::<i64>().expect("a delivery's answer");
                        let (d, o) = (n(&pair[0]), n(&pair[1]));
                        self.delivered.insert((one.w, d, o));
                        *self.deliveries.0.entry((one.w, d)).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
    }
}

/// What the database shows of the acknowledged transactions: one line
/// per one missing or present where it should not be.
pub fn missing(db: &Database, scale: Scale, acked: &Acknowledged) -> Vec<String> {
    let dump = db.dump().expect("dump");
    let table = |name: &str| {
        dump.tables
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, rows)| rows.as_slice())
            .unwrap_or_else(|| panic!("no table {name}"))
    };
    let entered: BTreeSet<i64> = table("Orders").iter().map(|o| int(o, "entry_d")).collect();
    let carried: BTreeSet<(i64, i64, i64)> = table("Orders")
        .iter()
        .filter(|o| o.field("carrier_id").is_some_and(|c| *c != Value::Null))
        .map(|o| (int(o, "w_id"), int(o, "d_id"), int(o, "id")))
        .collect();
    let new_orders: BTreeSet<(i64, i64, i64)> = table("NewOrder")
        .iter()
        .map(|o| (int(o, "w_id"), int(o, "d_id"), int(o, "o_id")))
        .collect();
    let paid: BTreeSet<i64> = table("History").iter().map(|h| int(h, "id")).collect();
    // The orders each unanswered Delivery delivered, by its `h`.
    let mut dated: BTreeMap<i64, BTreeSet<(i64, i64, i64)>> = BTreeMap::new();
    for line in table("OrderLine") {
        if let Some(Value::Int(h)) = line.field("delivery_d") {
            let order = (int(line, "w_id"), int(line, "d_id"), int(line, "o_id"));
            dated.entry(*h).or_default().insert(order);
        }
    }
    let mut deliveries = acked.deliveries.clone();
    for (h, _) in &acked.unanswered_deliveries {
        for (w, d, _) in dated.get(h).into_iter().flatten() {
            *deliveries.0.entry((*w, *d)).or_default() += 1;
        }
    }
    let mut out: Vec<String> = check(&dump, scale, &deliveries)
        .iter()
        .map(ToString::to_string)
        .collect();
    out.extend(
        acked
            .orders
            .difference(&entered)
            .map(|h| format!("the acknowledged New-Order {h} has no order")),
    );
    out.extend(
        acked
            .refused
            .intersection(&entered)
            .map(|h| format!("the refused New-Order {h} left an order")),
    );
    out.extend(
        acked
            .payments
            .difference(&paid)
            .map(|h| format!("the acknowledged Payment {h} has no History row")),
    );
    out.extend(
        acked
            .refused_payments
            .intersection(&paid)
            .map(|h| format!("the refused Payment {h} left a History row")),
    );
    for order in &acked.delivered {
        if !carried.contains(order) || new_orders.contains(order) {
            out.push(format!("the delivered order {order:?} is not delivered"));
        }
    }
    let verified = db.verify().expect("verify");
    out.extend(verified.problems.iter().map(|p| format!("verify: {p}")));
    out
}
