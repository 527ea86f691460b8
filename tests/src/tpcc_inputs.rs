//! TPC-C's transaction inputs (clause 2): the mix, NURand (2.1.6) with its
//! run constants, the 1% of New-Orders that roll back, and each
//! transaction's call of the example's entry points.

use crate::tpcc::{last_name, Scale};
use crate::Rng;
use rqc_plan::Value;

/// NURand's `A` for last names (C_LAST), customer ids (C_ID) and item ids
/// (OL_I_ID), clause 2.1.6.
pub const A_LAST: i64 = 255;
pub const A_CUSTOMER: i64 = 1023;
pub const A_ITEM: i64 = 8191;

/// `random(x, y)`: uniform over `x..=y` (clause 2.1.4). From the draw's
/// high bits (a multiply, not `%`): xorshift's low bits of two draws in a
/// row are correlated, and NURand ORs two draws, so `Rng::below` left a
/// third of NURand(1023, 1, 3000)'s values unreachable.
pub fn random(rng: &mut Rng, x: i64, y: i64) -> i64 {
    let span = (y - x + 1) as u128;
    x + ((rng.next_u64() as u128 * span) >> 64) as i64
}

/// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
/// (clause 2.1.6): non-uniform over `x..=y`, its hot values set by `c`.
pub fn nurand(rng: &mut Rng, a: i64, x: i64, y: i64, c: i64) -> i64 {
    (((random(rng, 0, a) | random(rng, x, y)) + c) % (y - x + 1)) + x
}

/// The `C` of each NURand field, each in `0..=A`. One set generates the
/// database (C-Load: the population's last names) and another drives a
/// run (C-Run), the same for every terminal (2.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constants {
    pub c_last: i64,
    pub c_id: i64,
    pub ol_i_id: i64,
}

impl Constants {
    /// C-Load for the population made from `seed`: drawn from a generator of
    /// its own, so the population's other draws stay as they were.
    pub fn load(seed: u64) -> Constants {
        let mut rng = Rng::new(seed ^ 0x4C4F_4144_C0DE_0001);
        Constants {
            c_last: random(&mut rng, 0, A_LAST),
            c_id: random(&mut rng, 0, A_CUSTOMER),
            ol_i_id: random(&mut rng, 0, A_ITEM),
        }
    }

    /// C-Run for a run on the database `load` made. C_LAST must differ from
    /// C-Load's by 65 to 119, but not by 96 or 112 (2.1.6.1), so a run's hot
    /// names are not the population's; C_ID and OL_I_ID are free.
    pub fn run(load: &Constants, seed: u64) -> Constants {
        let mut rng = Rng::new(seed ^ 0x5255_4E00_C0DE_0002);
        let c_last = loop {
            let c = random(&mut rng, 0, A_LAST);
            if Constants::run_rule_holds(load.c_last, c) {
                break c;
            }
        };
        Constants {
            c_last,
            c_id: random(&mut rng, 0, A_CUSTOMER),
            ol_i_id: random(&mut rng, 0, A_ITEM),
        }
    }

    /// Clause 2.1.6.1's rule between C-Load's and C-Run's C_LAST.
    pub fn run_rule_holds(load: i64, run: i64) -> bool {
        let delta = (run - load).abs();
        (65..=119).contains(&delta) && delta != 96 && delta != 112
    }
}

/// One transaction of the mix, with its arguments drawn once so every
/// system (and the crash test's parent and child) runs the same sequence.
#[derive(Clone, Debug)]
pub enum Txn {
    /// `rollback`: its last item id is unused (2.4.1.4), so the item
    /// lookup fails and the whole transaction rolls back.
    NewOrder {
        d: i64,
        c: i64,
        lines: Vec<(i64, i64)>,
        rollback: bool,
    },
    Payment {
        d: i64,
        c: i64,
        amount: f64,
    },
    PaymentByName {
        d: i64,
        name: String,
        amount: f64,
    },
    OrderStatus {
        d: i64,
        c: i64,
    },
    OrderStatusByName {
        d: i64,
        name: String,
    },
    Delivery {
        carrier: i64,
    },
    StockLevel {
        d: i64,
        threshold: i64,
    },
}

/// The mix and its input distributions for one run: the scale, the run's
/// NURand constants, and whether 1% of New-Orders roll back.
#[derive(Clone, Copy, Debug)]
pub struct Mix {
    pub scale: Scale,
    pub constants: Constants,
    pub rollbacks: bool,
}

impl Mix {
    /// The mix of a run (`run_seed`) on the population made from
    /// `load_seed`, with rollbacks.
    pub fn new(scale: Scale, load_seed: u64, run_seed: u64) -> Mix {
        Mix {
            scale,
            constants: Constants::run(&Constants::load(load_seed), run_seed),
            rollbacks: true,
        }
    }

    /// The same mix with no New-Order rolled back, for callers that count
    /// every refused call as a failure.
    pub fn without_rollbacks(self) -> Mix {
        Mix {
            rollbacks: false,
            ..self
        }
    }

    /// A customer id: NURand(1023, 1, customers per district).
    pub fn customer(&self, rng: &mut Rng) -> i64 {
        nurand(
            rng,
            A_CUSTOMER,
            1,
            self.scale.customers,
            self.constants.c_id,
        )
    }

    /// An item id: NURand(8191, 1, items).
    pub fn item(&self, rng: &mut Rng) -> i64 {
        nurand(rng, A_ITEM, 1, self.scale.items, self.constants.ol_i_id)
    }

    /// A last name: NURand(255, 0, 999) over the numbers the population's
    /// names come from (fewer when a district has fewer than 1,000
    /// customers: the population gives the first 1,000 the numbers in order).
    pub fn last_name(&self, rng: &mut Rng) -> String {
        let y = self.scale.customers.min(1000) - 1;
        last_name(nurand(rng, A_LAST, 0, y, self.constants.c_last))
    }

    /// The standard mix (clause 5.2.3's minimums, as the specification's
    /// usual weights): 45% New-Order, 43% Payment, 4% each Order-Status,
    /// Delivery and Stock-Level; 60% of Payments and of Order-Statuses by
    /// last name (2.5.1.2, 2.6.1.2); 1% of New-Orders rolled back (2.4.1.4).
    pub fn draw(&self, rng: &mut Rng) -> Txn {
        let roll = rng.below(100);
        let d = random(rng, 1, 10);
        match roll {
            0..=44 => {
                let c = self.customer(rng);
                let count = random(rng, 5, 15);
                let rollback = self.rollbacks && random(rng, 1, 100) == 1;
                let mut lines: Vec<(i64, i64)> = Vec::new();
                while (lines.len() as i64) < count {
                    let i = self.item(rng);
                    if !lines.iter().any(|(j, _)| *j == i) {
                        lines.push((i, random(rng, 1, 10)));
                    }
                }
                if rollback {
                    // An id no item has: one past the last.
                    lines.last_mut().expect("5 lines or more").0 = self.scale.items + 1;
                }
                Txn::NewOrder {
                    d,
                    c,
                    lines,
                    rollback,
                }
            }
            45..=87 => {
                // H_AMOUNT: random(1.00, 5,000.00) (2.5.1.3).
                let amount = random(rng, 100, 500_000) as f64 / 100.0;
                if random(rng, 1, 100) <= 60 {
                    let name = self.last_name(rng);
                    Txn::PaymentByName { d, name, amount }
                } else {
                    let c = self.customer(rng);
                    Txn::Payment { d, c, amount }
                }
            }
            88..=91 => {
                if random(rng, 1, 100) <= 60 {
                    let name = self.last_name(rng);
                    Txn::OrderStatusByName { d, name }
                } else {
                    let c = self.customer(rng);
                    Txn::OrderStatus { d, c }
                }
            }
            92..=95 => Txn::Delivery {
                carrier: random(rng, 1, 10),
            },
            _ => Txn::StockLevel {
                d,
                threshold: random(rng, 10, 20),
            },
        }
    }
}

impl Txn {
    /// Whether the transaction is one the specification rolls back.
    pub fn rolls_back(&self) -> bool {
        matches!(self, Txn::NewOrder { rollback: true, .. })
    }

    /// The example's entry and arguments for this transaction in warehouse
    /// `w`; `h` numbers it (history key and timestamp).
    pub fn call(&self, w: i64, h: i64) -> (&'static str, Vec<Value>) {
        match self {
            Txn::NewOrder { d, c, lines, .. } => {
                let lines = Value::List(
                    (1..)
                        .zip(lines)
                        .map(|(number, (item, quantity))| {
                            Value::record(vec![
                                ("number".into(), Value::Int(number)),
                                ("item".into(), Value::Int(*item)),
                                ("quantity".into(), Value::Int(*quantity)),
                            ])
                        })
                        .collect(),
                );
                (
                    "new_order",
                    vec![w.into(), (*d).into(), (*c).into(), lines, h.into()],
                )
            }
            Txn::Payment { d, c, amount } => (
                "payment",
                vec![
                    w.into(),
                    (*d).into(),
                    (*c).into(),
                    Value::Float(*amount),
                    h.into(),
                    h.into(),
                ],
            ),
            Txn::PaymentByName { d, name, amount } => (
                "payment_by_name",
                vec![
                    w.into(),
                    (*d).into(),
                    name.clone().into(),
                    Value::Float(*amount),
                    h.into(),
                    h.into(),
                ],
            ),
            Txn::OrderStatus { d, c } => ("order_status", vec![w.into(), (*d).into(), (*c).into()]),
            Txn::OrderStatusByName { d, name } => (
                "order_status_by_name",
                vec![w.into(), (*d).into(), name.clone().into()],
            ),
            Txn::Delivery { carrier } => ("delivery", vec![w.into(), (*carrier).into(), h.into()]),
            Txn::StockLevel { d, threshold } => (
                "stock_level",
                vec![w.into(), (*d).into(), (*threshold).into()],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NURand stays in `x..=y`, and over the ranges a run draws from in
    /// full it reaches nearly every value (the OR makes a few rare).
    #[test]
    fn nurand_stays_in_its_range_and_covers_it() {
        let mut rng = Rng::new(3);
        for (a, x, y) in [
            (A_LAST, 0, 999),
            (A_LAST, 0, 29),
            (A_CUSTOMER, 1, 3000),
            (A_CUSTOMER, 1, 30),
            (A_ITEM, 1, 100_000),
            (A_ITEM, 1, 1000),
        ] {
            for c in [0, 1, a / 2, a] {
                let mut seen = std::collections::BTreeSet::new();
                for _ in 0..200_000 {
                    let v = nurand(&mut rng, a, x, y, c);
                    assert!((x..=y).contains(&v), "NURand({a}, {x}, {y}) C={c} gave {v}");
                    seen.insert(v);
                }
                if y - x < 5000 {
                    let share = seen.len() as f64 / (y - x + 1) as f64;
                    assert!(share > 0.9, "NURand({a}, {x}, {y}) C={c}: {share}");
                }
            }
        }
    }

    /// NURand is not uniform: over 1..=3,000 customers, the most drawn id
    /// comes up far more often than a uniform draw's 1/3,000.
    #[test]
    fn nurand_has_hot_values() {
        let mut rng = Rng::new(5);
        let mut counts = vec![0u32; 3001];
        let draws = 300_000;
        for _ in 0..draws {
            counts[nurand(&mut rng, A_CUSTOMER, 1, 3000, 77) as usize] += 1;
        }
        let hottest = *counts.iter().max().unwrap();
        assert!(
            hottest > 3 * draws / 3000,
            "hottest id drawn {hottest} times of {draws}"
        );
    }

    /// C-Run's C_LAST keeps clause 2.1.6.1's distance from C-Load's for
    /// every seed, and every constant stays within its `0..=A`.
    #[test]
    fn run_constants_keep_the_distance_rule() {
        for seed in 0..2000u64 {
            let load = Constants::load(seed);
            let run = Constants::run(&load, seed.wrapping_mul(31) + 1);
            let delta = (run.c_last - load.c_last).abs();
            assert!(
                (65..=119).contains(&delta) && delta != 96 && delta != 112,
                "seed {seed}: C-Load {} C-Run {}",
                load.c_last,
                run.c_last
            );
            for (c, a) in [
                (load.c_last, A_LAST),
                (run.c_last, A_LAST),
                (load.c_id, A_CUSTOMER),
                (run.c_id, A_CUSTOMER),
                (load.ol_i_id, A_ITEM),
                (run.ol_i_id, A_ITEM),
            ] {
                assert!((0..=a).contains(&c), "seed {seed}: {c} outside 0..={a}");
            }
        }
        assert!(!Constants::run_rule_holds(10, 10 + 96));
        assert!(!Constants::run_rule_holds(200, 200 - 112));
        assert!(!Constants::run_rule_holds(0, 64));
        assert!(!Constants::run_rule_holds(0, 120));
        assert!(Constants::run_rule_holds(120, 120 - 65));
    }

    /// The mix at `--small`'s scale: every input within the scale's
    /// cardinalities (a rolled-back New-Order's last item alone outside),
    /// each name one the population gave, about 1% of New-Orders rolled
    /// back and about 60% of Payments and Order-Statuses by name.
    #[test]
    fn the_mix_respects_the_scale_and_its_shares() {
        let scale = Scale {
            warehouses: 1,
            customers: 30,
            items: 1000,
        };
        let names: Vec<String> = (0..30).map(last_name).collect();
        let mix = Mix::new(scale, 1, 2);
        let mut rng = Rng::new(9);
        let (mut new_orders, mut rollbacks) = (0, 0);
        let (mut payments, mut payments_by_name) = (0, 0);
        let (mut statuses, mut statuses_by_name) = (0, 0);
        for _ in 0..100_000 {
            match mix.draw(&mut rng) {
                Txn::NewOrder {
                    c, lines, rollback, ..
                } => {
                    new_orders += 1;
                    assert!((1..=30).contains(&c));
                    assert!((5..=15).contains(&lines.len()));
                    let (last, rest) = lines.split_last().unwrap();
                    for (i, q) in rest {
                        assert!((1..=1000).contains(i) && (1..=10).contains(q));
                    }
                    assert_eq!(last.0 > 1000, rollback, "{lines:?}");
                    rollbacks += rollback as u32;
                }
                Txn::Payment { c, amount, .. } => {
                    payments += 1;
                    assert!((1..=30).contains(&c) && (1.0..=5000.0).contains(&amount));
                }
                Txn::PaymentByName { name, .. } => {
                    payments_by_name += 1;
                    assert!(names.contains(&name), "{name}");
                }
                Txn::OrderStatus { c, .. } => {
                    statuses += 1;
                    assert!((1..=30).contains(&c));
                }
                Txn::OrderStatusByName { name, .. } => {
                    statuses_by_name += 1;
                    assert!(names.contains(&name), "{name}");
                }
                _ => {}
            }
        }
        let share = |part: u32, whole: u32| part as f64 / whole as f64;
        let rolled = share(rollbacks, new_orders);
        assert!((0.005..0.015).contains(&rolled), "{rolled}");
        let by_name = share(payments_by_name, payments + payments_by_name);
        assert!((0.57..0.63).contains(&by_name), "{by_name}");
        let by_name = share(statuses_by_name, statuses + statuses_by_name);
        assert!((0.55..0.65).contains(&by_name), "{by_name}");
        let none = Mix::new(scale, 1, 2).without_rollbacks();
        assert!((0..10_000).all(|_| !none.draw(&mut rng).rolls_back()));
    }
}
