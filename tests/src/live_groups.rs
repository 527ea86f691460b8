//! A live query's program for the install tests: groups of members under a `bound`, a database on a store or on etcd, and subscribers to its queries (tests/tests/live_installs.rs, live_install_attacks.rs).

use rqc::{Backend, Database, Durability, Event, OpenOptions, Subscription, Value};
use std::path::PathBuf;
use std::time::Duration;

pub const WAIT: Duration = Duration::from_secs(30);

/// Groups of members, at most `bound` a group; `group(g)` reads a whole
/// group (at most `bound` rows, E0599 past it), `size(g)` counts it.
pub fn program(bound: u32) -> String {
    format!(
        "
table M {{
  grp: Int
  id: Int
  name: String <= 20
  key (grp, id)
  bound grp <= {bound}
}}
mutation add(grp: Int, id: Int, name: String) = insert M {{ grp, id, name }}
mutation remove(grp: Int, id: Int) = delete M[grp, id]
query group(g: Int) = M[g]
query size(g: Int) = M[g] |> count()
"
    )
}

/// A database on a store, or on etcd (a URL).
#[derive(Clone, Debug)]
pub enum Place {
    Dir(PathBuf, Option<Backend>),
    Url(String),
}

impl Place {
    pub fn open(&self) -> Database {
        match self {
            Place::Dir(dir, backend) => {
                let options = OpenOptions {
                    backend: *backend,
                    durability: Durability::None,
                    ..OpenOptions::default()
                };
                Database::open_with(dir, options).unwrap()
            }
            Place::Url(url) => Database::connect(url).unwrap(),
        }
    }

    pub fn text(&self) -> String {
        match self {
            Place::Dir(dir, _) => dir.display().to_string(),
            Place::Url(url) => url.clone(),
        }
    }

    pub fn parse(text: &str) -> Place {
        match text.starts_with("etcd://") {
            true => Place::Url(text.to_string()),
            false => Place::Dir(PathBuf::from(text), None),
        }
    }
}

/// The program with `bound`, then group 1 holding members 1..=3 and
/// group 2 member 1.
pub fn setup(db: &mut Database, bound: u32) {
    db.install_source("groups.rq", &program(bound)).unwrap();
    for (grp, id) in [(1i64, 1i64), (1, 2), (1, 3), (2, 1)] {
        db.run("add", &[grp.into(), id.into(), format!("m{id}").into()])
            .unwrap();
    }
}

/// A result as JSON, lists as multisets (a `Rows` event's order is a fresh run's).
pub fn normal(json: &serde_json::Value) -> String {
    match json {
        serde_json::Value::Array(items) => {
            let mut items: Vec<String> = items.iter().map(|i| i.to_string()).collect();
            items.sort();
            items.join("\n")
        }
        other => other.to_string(),
    }
}

/// A subscriber's handle and what it holds.
pub struct Watched {
    pub name: &'static str,
    pub group: i64,
    pub live: Subscription,
    pub held: Value,
}

pub fn watch(db: &Database, name: &'static str, group: i64) -> Watched {
    let live = db
        .prepare(name)
        .unwrap()
        .subscribe(&[group.into()])
        .unwrap();
    let Some(Event::Result { value, .. }) = live.next_timeout(WAIT) else {
        panic!("a subscription opens with its whole result");
    };
    Watched {
        name,
        group,
        live,
        held: value,
    }
}

/// The events `watched` got up to `position`.
pub fn events(watched: &Watched, position: u64) -> Vec<Event> {
    assert!(
        watched.live.wait_for(position, WAIT),
        "the watcher did not reach {position}"
    );
    std::iter::from_fn(|| watched.live.try_next()).collect()
}
