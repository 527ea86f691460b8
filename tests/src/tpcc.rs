//! The TPC-C population for W warehouses, at the specification's
//! cardinalities or scaled down (the mutations, name and arguments, that
//! load it, in order); the mix's inputs are `tpcc_inputs`'. Shared by the
//! example's test, the crash test and the benchmarks.

use crate::tpcc_inputs::{nurand, Constants, A_LAST};
use crate::Rng;
use rqc_plan::Value;

pub use crate::tpcc_inputs::{Mix, Txn};

/// The scale: customers per district and items (TPC-C: 3,000 and 100,000).
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub warehouses: i64,
    pub customers: i64,
    pub items: i64,
}

/// Each customer's initial payment, its History row's amount (4.3.3.1).
pub const INITIAL_PAYMENT: f64 = 10.0;

impl Scale {
    /// The initial orders already delivered in each district: the first
    /// 70% (TPC-C's 2,100 of 3,000), the rest being new orders.
    pub fn delivered_orders(&self) -> i64 {
        self.customers * 7 / 10
    }

    /// A district's initial `D_YTD`: its customers' initial payments
    /// (TPC-C's 30,000.00 at 3,000 customers).
    pub fn district_ytd(&self) -> f64 {
        self.customers as f64 * INITIAL_PAYMENT
    }

    /// The History id of customer `c`'s initial payment: negative, so the
    /// ids the mix gives its payments (0, 1, …) never meet them.
    fn initial_history_id(&self, w: i64, d: i64, c: i64) -> i64 {
        -(((w - 1) * 10 + (d - 1)) * self.customers + c)
    }
}

const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// TPC-C's last name for a number 0..999: three syllables.
pub fn last_name(n: i64) -> String {
    let n = n.rem_euclid(1000);
    format!(
        "{}{}{}",
        SYLLABLES[(n / 100) as usize],
        SYLLABLES[(n / 10 % 10) as usize],
        SYLLABLES[(n % 10) as usize]
    )
}

/// The loading mutations. Per TPC-C 4.3.3.1, scaled: every customer has a
/// History row of 10.00 (the year-to-date sums are theirs) and one initial
/// order (in a random order of customers), with 5 to 15 lines numbered from
/// 1; the first 70% are delivered (amount 0.00), the rest are new orders
/// (amount 0.01 to 9,999.99); `D_NEXT_O_ID` follows.
pub fn population(scale: Scale, seed: u64) -> Vec<(&'static str, Vec<Value>)> {
    let mut out = Vec::new();
    each_population_call(scale, seed, &mut |name, args| out.push((name, args)));
    out
}

/// Hands over the calls that make [`population`] one at a time, in its
/// order, so a loader at full scale holds no more than it batches.
pub fn each_population_call(
    scale: Scale,
    seed: u64,
    emit: &mut dyn FnMut(&'static str, Vec<Value>),
) {
    let mut rng = Rng::new(seed);
    let c_load = Constants::load(seed).c_last;
    let mut out = Emit(emit);
    for i in 1..=scale.items {
        out.push((
            "add_item",
            vec![i.into(), Value::Float(1.0 + rng.below(9900) as f64 / 100.0)],
        ));
    }
    for w in 1..=scale.warehouses {
        out.push((
            "add_warehouse",
            vec![w.into(), Value::Float(10.0 * scale.district_ytd())],
        ));
        for i in 1..=scale.items {
            out.push((
                "add_stock",
                vec![w.into(), i.into(), (10 + rng.below(91)).into()],
            ));
        }
        for d in 1..=10i64 {
            let orders = scale.customers;
            out.push((
                "add_district",
                vec![
                    w.into(),
                    d.into(),
                    (orders + 1).into(),
                    Value::Float(scale.district_ytd()),
                ],
            ));
            for c in 1..=scale.customers {
                // The first thousand customers take the thousand names in
                // order, the rest NURand(255, 0, 999) with C-Load (4.3.2.3).
                let last = if c <= 1000 {
                    last_name(c - 1)
                } else {
                    last_name(nurand(&mut rng, A_LAST, 0, 999, c_load))
                };
                out.push((
                    "add_customer",
                    vec![
                        w.into(),
                        d.into(),
                        c.into(),
                        format!("F{c}").into(),
                        last.into(),
                    ],
                ));
                out.push((
                    "add_history",
                    vec![
                        scale.initial_history_id(w, d, c).into(),
                        w.into(),
                        d.into(),
                        c.into(),
                        Value::Float(INITIAL_PAYMENT),
                    ],
                ));
            }
            let mut customers: Vec<i64> = (1..=scale.customers).collect();
            for k in (1..customers.len()).rev() {
                customers.swap(k, rng.below(k as u64 + 1) as usize);
            }
            let delivered_up_to = scale.delivered_orders();
            for (o, c) in (1..=orders).zip(customers) {
                let delivered = o <= delivered_up_to;
                let lines = 5 + rng.below(11);
                let carrier = if delivered {
                    Value::Int(1 + rng.below(10))
                } else {
                    Value::Null
                };
                out.push((
                    "add_order",
                    vec![
                        w.into(),
                        d.into(),
                        o.into(),
                        c.into(),
                        o.into(),
                        carrier,
                        lines.into(),
                    ],
                ));
                let mut items = Vec::new();
                while (items.len() as i64) < lines {
                    let i = 1 + rng.below(scale.items as u64);
                    if !items.contains(&i) {
                        items.push(i);
                    }
                }
                for (number, i) in (1..).zip(items) {
                    let amount = if delivered {
                        0.0
                    } else {
                        (1 + rng.below(999_999)) as f64 / 100.0
                    };
                    let delivery = if delivered {
                        Value::Int(o)
                    } else {
                        Value::Null
                    };
                    out.push((
                        "add_order_line",
                        vec![
                            w.into(),
                            d.into(),
                            o.into(),
                            Value::Int(number),
                            i.into(),
                            5.into(),
                            Value::Float(amount),
                            delivery,
                        ],
                    ));
                }
                if !delivered {
                    out.push(("add_new_order", vec![w.into(), d.into(), o.into()]));
                }
            }
        }
    }
}

/// The population's calls, pushed to whoever takes them.
struct Emit<'a>(&'a mut dyn FnMut(&'static str, Vec<Value>));

impl Emit<'_> {
    fn push(&mut self, (name, args): (&'static str, Vec<Value>)) {
        (self.0)(name, args)
    }
}
