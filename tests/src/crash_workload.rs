//! The crash test's workload: the social and TPC-C examples installed as
//! one program, a setup, and a stream of their mutations that a seed and a
//! position name, so the parent knows what the child it killed was running.

use crate::arguments::{arguments, Pools};
use crate::tpcc::{population, Mix, Scale, Txn};
use crate::{repo_root, Rng};
use rqc_plan::{Entry, EntryKind, Value};
use std::path::PathBuf;

/// Users the social mutations pick from (ids `0..USERS`).
pub const USERS: i64 = 40;

/// One warehouse, scaled down further than the example's test: each round
/// of the crash test re-reads every table.
pub const SCALE: Scale = Scale {
    warehouses: 1,
    customers: 10,
    items: 50,
};

const COUNTRIES: [&str; 4] = ["NZ", "FR", "JP", "BR"];

/// The examples the child installs.
pub fn example_dirs() -> Vec<PathBuf> {
    ["examples/social", "examples/tpcc"]
        .iter()
        .map(|dir| repo_root().join(dir))
        .collect()
}

/// The mutations that load the database before the first crash: countries,
/// users with handles `user0`.., and the TPC-C population.
pub fn setup() -> Vec<(&'static str, Vec<Value>)> {
    let mut calls: Vec<(&'static str, Vec<Value>)> = COUNTRIES
        .iter()
        .map(|code| {
            let name = format!("Country {code}");
            ("add_country", vec![(*code).into(), name.into()])
        })
        .collect();
    for id in 0..USERS {
        let country = COUNTRIES[id as usize % COUNTRIES.len()];
        calls.push(user(id, id, country));
    }
    calls.extend(population(SCALE, 5));
    calls
}

fn user(id: i64, handle: i64, country: &str) -> (&'static str, Vec<Value>) {
    (
        "add_user",
        vec![
            id.into(),
            format!("user{handle}").into(),
            format!("User {id}").into(),
            country.into(),
        ],
    )
}

/// The `i`-th mutation of the stream `seed`: half TPC-C transactions (its
/// mix without the two read-only ones), half social writes. Some are
/// refused by a constraint (a second follow of the same pair, a taken
/// handle): those must change nothing.
pub fn operation(seed: u64, i: i64) -> (&'static str, Vec<Value>) {
    let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let user_id = |rng: &mut Rng| rng.below(USERS as u64);
    match rng.below(100) {
        0..=49 => loop {
            // No rollbacks: the parent counts a refused call apart.
            let txn = Mix::new(SCALE, seed, seed)
                .without_rollbacks()
                .draw(&mut rng);
            if !matches!(
                txn,
                Txn::OrderStatus { .. } | Txn::OrderStatusByName { .. } | Txn::StockLevel { .. }
            ) {
                return txn.call(1, i);
            }
        },
        50..=64 => {
            let (a, b) = (user_id(&mut rng), user_id(&mut rng));
            ("follow", vec![a.into(), b.into(), i.into()])
        }
        65..=74 => {
            let (a, b) = (user_id(&mut rng), user_id(&mut rng));
            ("unfollow", vec![a.into(), b.into()])
        }
        75..=84 => {
            let author = user_id(&mut rng);
            let body = format!("post {i}");
            (
                "add_post",
                vec![i.into(), author.into(), i.into(), body.into()],
            )
        }
        85..=89 => {
            let name = format!("Name {i}");
            ("rename", vec![user_id(&mut rng).into(), name.into()])
        }
        90..=92 => ("unfollow_all", vec![user_id(&mut rng).into()]),
        _ => {
            let country = COUNTRIES[rng.below(COUNTRIES.len() as u64) as usize];
            user(1000 + i, rng.below(200), country)
        }
    }
}

/// Calls of every query of the program, with arguments that hit rows
/// often: ids among the users and TPC-C's warehouse, districts and
/// customers, handles and last names that exist (and some that do not).
pub fn query_calls(entries: &[std::sync::Arc<Entry>], rng: &mut Rng) -> Vec<(String, Vec<Value>)> {
    let pools = Pools {
        // Times are positions in the stream: sometimes a late one.
        int: &|rng| match rng.below(4) {
            0 => rng.below(100_000),
            _ => rng.below(USERS as u64 + 1),
        },
        float: &|rng| rng.below(100) as f64,
        string: &|rng| match rng.below(3) {
            0 => format!("user{}", rng.below(220)),
            1 => crate::tpcc::last_name(rng.below(12)),
            _ => COUNTRIES[rng.below(4) as usize].to_string(),
        },
        list_len: 5,
    };
    let mut calls = Vec::new();
    for entry in entries.iter().filter(|e| e.kind == EntryKind::Query) {
        for _ in 0..2 {
            calls.push((entry.name.clone(), arguments(entry, &pools, rng)));
        }
    }
    calls
}
