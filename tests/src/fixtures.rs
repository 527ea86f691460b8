//! The corpus's schemas with mutations that fill them: the programs that runs against the reference evaluator load their data through.

use crate::{relative, repo_root, rq_files};

/// Mutations that insert a row into each table of the corpus's `social`
/// and `shop` schemas (module `fixtures`).
pub const FIXTURES: &str = "
module fixtures
import social.{User, Follow, Post, Country}
import shop.{Customer, Order, Line, Region, Review}
mutation add_user(id: Int, handle: String, name: String, country: String) =
  insert User { id, handle, name, country }
mutation add_follow(a: Int, b: Int, since: Int) = insert Follow { follower: a, followee: b, since: since }
mutation add_post(id: Int, author: Int, at: Int, body: String) = insert Post { id, author, at, body }
mutation add_country(code: String, name: String) = insert Country { code, name }
mutation add_customer(id: Int, email: String, tier: Int) = insert Customer { id, email, name: email, tier }
mutation add_order(id: Int, c: Int, at: Int, total: Int) = insert Order { id, customer: c, placed: at, total }
mutation add_line(o: Int, n: Int, sku: String, qty: Int, price: Int) = insert Line { order: o, n, sku, qty, price }
mutation add_region(code: String, name: String) = insert Region { code, name }
mutation add_review(id: Int, sku: String, stars: Int, at: Int) = insert Review { id, sku, stars, at }
";

/// Teams and their members (a reference, a key, a unique column, an index,
/// and a bound of `bound` members a team): the schema of the tests of
/// constraints, faults, processes and loads.
pub fn teams(bound: u32) -> String {
    format!(
        "
table Team {{ id: Int key  name: String unique }}
table Member {{
  team: Int ref Team
  id: Int key
  nick: String unique
  index by_team (team)
  bound team <= {bound}
}}
"
    )
}

/// The trees of [`teams`]' schema: tables, indexes, the bound's counters
/// and the reference counters.
pub const TEAM_TREES: [&str; 7] = [
    "t:Team",
    "t:Member",
    "i:Member:by_team",
    "i:Member:nick",
    "i:Team:name",
    "b:Member:0",
    "r:Team",
];

/// The schemas every corpus program may import (tests/corpus/common).
pub fn corpus_schemas() -> Vec<(String, String)> {
    rq_files("tests/corpus/common")
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// The corpus's schemas and [`FIXTURES`], then each file of `extra`
/// (paths from the repository's root).
pub fn with_fixtures(extra: &[&str]) -> Vec<(String, String)> {
    let mut files = corpus_schemas();
    files.push(("fixtures.rq".into(), FIXTURES.into()));
    for path in extra {
        let text = std::fs::read_to_string(repo_root().join(path)).unwrap();
        files.push((path.to_string(), text));
    }
    files
}

/// A list result as a multiset: live events say which rows came and went,
/// not where, so a held list is compared with its rows in one order.
pub fn as_multiset(value: &rqc_plan::Value) -> rqc_plan::Value {
    match value {
        rqc_plan::Value::List(items) => {
            let mut items = items.clone();
            items.sort_by_key(|v| format!("{v:?}"));
            rqc_plan::Value::List(items)
        }
        other => other.clone(),
    }
}
