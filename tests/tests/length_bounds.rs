//! `String <= n` columns end to end, on every backend and on etcd: writes
//! past the bound refused with nothing written, reads keyed by longer
//! values answered without a read, schema changes of a bound, and on etcd
//! the request size proved at install.

use rqc_plan::Value;
use rqc_runtime::store::EtcdOptions;
use rqc_runtime::{Backend, Engine, OpenOptions, RuntimeError};
use rqc_tests::{accepted, string_fields};

const PROGRAM: &str = "\
table Account {
  code: String <= 4 key
  handle: String <= 6 unique
  note: String? <= 3
  index by_note (note, code)
}
mutation add(code: String, handle: String, note: String?) = insert Account { code, handle, note }
mutation renote(code: String, note: String?) = update Account[code] { note: note }
query by_code(c: String) = Account[c]
query by_handle(h: String) = Account.handle[h]
query noted(p: String) = Account.by_note[starts_with(note, p)] |> take(10)
query after(c: String) = Account[code > c] |> take(10)
";

/// An engine on every store: in memory, each disk backend, and etcd.
fn engines(dir: &std::path::Path) -> Vec<(String, Engine)> {
    let mut all: Vec<(String, Engine)> = Backend::ALL
        .iter()
        .map(|&backend| {
            let options = OpenOptions {
                backend: Some(backend),
                ..OpenOptions::default()
            };
            let path = dir.join(format!("{backend:?}"));
            (
                format!("{backend:?}"),
                Engine::open(&path, options).unwrap(),
            )
        })
        .collect();
    all.push(("etcd".into(), rqc_tests::etcd::engine()));
    all
}

fn refused(engine: &Engine, name: &str, args: &[Value]) -> RuntimeError {
    match engine.run(name, args) {
        Ok(out) => panic!("{name}{args:?} was accepted: {:?}", out.value),
        Err(e) => e,
    }
}

#[test]
fn every_store_refuses_a_longer_value_and_keeps_the_rows_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    for (on, mut engine) in engines(dir.path()) {
        engine.install(accepted(PROGRAM)).unwrap();
        // Exactly the bound is accepted; it counts bytes, not characters.
        engine
            .run("add", &["abcd".into(), "ééé".into(), "xy".into()])
            .unwrap();
        for args in [
            vec!["abcde".into(), "h".into(), Value::Null],
            vec!["b".into(), "éééé".into(), Value::Null],
            vec!["c".into(), "h2".into(), "wxyz".into()],
        ] {
            let e = refused(&engine, "add", &args);
            assert_eq!(e.code, "E0576", "{on}: {e}");
            assert!(
                e.message.contains("nothing was written"),
                "{on}: {}",
                e.message
            );
        }
        let e = refused(&engine, "renote", &["abcd".into(), "long".into()]);
        assert_eq!(e.code, "E0576", "{on}");
        assert!(
            e.message.contains("`Account.note` holds at most 3 bytes"),
            "{on}: {}",
            e.message
        );
        assert!(e.help.contains("note: String? <= 4"), "{on}: {}", e.help);
        let kept = engine.run("by_code", &["abcd".into()]).unwrap().value;
        assert_eq!(kept.field("note"), Some(&Value::from("xy")), "{on}");
        assert_eq!(
            string_fields(&engine.run("after", &["".into()]).unwrap().value, "code"),
            ["abcd"],
            "{on}"
        );
    }
}

#[test]
fn a_read_keyed_past_the_bound_finds_nothing_and_on_etcd_asks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (on, mut engine) in engines(dir.path()) {
        engine.install(accepted(PROGRAM)).unwrap();
        for (code, handle, note) in [
            ("a", "h1", "x"),
            ("ab", "h2", "xy"),
            ("abc", "h3", "xyz"),
            ("b", "h4", "y"),
        ] {
            engine
                .run("add", &[code.into(), handle.into(), note.into()])
                .unwrap();
        }
        let long = "a".repeat(10_000);
        for (name, arg) in [("by_code", &long), ("by_handle", &long)] {
            let out = engine.run(name, &[arg.as_str().into()]).unwrap();
            assert_eq!(out.value, Value::Null, "{on}: {name}");
        }
        // In a mutation on etcd, whose commit's size is proved, the lookup
        // keyed past the bound asks nothing; elsewhere it asks the store.
        let out = engine
            .run("renote", &[long.as_str().into(), Value::Null])
            .unwrap();
        assert_eq!(out.value, Value::Int(0), "{on}");
        assert_eq!(out.stats.seeks, u64::from(on != "etcd"), "{on}");
        let out = engine.run("noted", &[long.as_str().into()]).unwrap();
        assert_eq!(
            string_fields(&out.value, "code"),
            Vec::<String>::new(),
            "{on}"
        );
        // A long lower end bounds the stored keys as it would unclamped:
        // every code above `aaaa…` (10,000 bytes) is above "a" too but
        // not "a" itself, and "ab" > "aaaa…".
        let out = engine.run("after", &[long.as_str().into()]).unwrap();
        assert_eq!(
            string_fields(&out.value, "code"),
            ["ab", "abc", "b"],
            "{on}"
        );
        let out = engine
            .run("after", &["abcz".repeat(1000).as_str().into()])
            .unwrap();
        assert_eq!(string_fields(&out.value, "code"), ["b"], "{on}");
    }
}

#[test]
fn a_bound_is_loosened_freely_tightened_only_over_values_that_fit_and_dropped_when_named() {
    let dir = tempfile::tempdir().unwrap();
    let options = OpenOptions {
        backend: Some(Backend::Lmdb),
        ..OpenOptions::default()
    };
    let mut engine = Engine::open(&dir.path().join("db"), options).unwrap();
    engine.install(accepted(PROGRAM)).unwrap();
    engine
        .run("add", &["abcd".into(), "h".into(), "xyz".into()])
        .unwrap();
    let tighter = PROGRAM.replace("note: String? <= 3", "note: String? <= 2");
    let e = engine.install(accepted(&tighter)).unwrap_err();
    assert_eq!(e.code, "E0510");
    assert!(
        e.message
            .contains("`Account.note` would hold at most 2 bytes, but a stored value has 3"),
        "{}",
        e.message
    );
    // Nothing changed: the old bound still holds writes.
    assert_eq!(
        refused(&engine, "renote", &["abcd".into(), "long".into()]).code,
        "E0576"
    );
    let looser = PROGRAM.replace("note: String? <= 3", "note: String? <= 8");
    engine.install(accepted(&looser)).unwrap();
    engine
        .run("renote", &["abcd".into(), "longer".into()])
        .unwrap();
    // Dropping the bound is a drop: named with `--migrate`, or refused.
    let unbounded = PROGRAM.replace("note: String? <= 3", "note: String?");
    let e = engine.install(accepted(&unbounded)).unwrap_err();
    assert_eq!(e.code, "E0519");
    assert!(
        e.help.contains("--migrate 'length:Account.note'"),
        "{}",
        e.help
    );
    engine
        .install_dropping(accepted(&unbounded), &["length:Account.note".into()])
        .unwrap();
    engine
        .run("renote", &["abcd".into(), "x".repeat(100).as_str().into()])
        .unwrap();
}

/// On etcd every mutation's commit must be proved to fit in one request:
/// a column it touches without a length bound is named, a mutation whose
/// proved size is past the cluster's limit is named with its figure, and
/// nothing is installed; within the limit, the longest values commit.
#[test]
fn on_etcd_the_request_size_is_proved_at_install() {
    let mut engine = rqc_tests::etcd::engine();
    let unbounded = PROGRAM.replace("handle: String <= 6", "handle: String");
    let e = engine.install(accepted(&unbounded)).unwrap_err();
    assert_eq!(e.code, "E0577", "{e}");
    assert!(e.message.contains("`Account.handle`"), "{}", e.message);
    assert!(!e.message.contains("`Account.note`"), "{}", e.message);
    assert!(e.help.contains("String <= 200"), "{}", e.help);
    assert!(engine.program().is_none());

    let cluster = rqc_tests::etcd::cluster_taking(64 * 1024);
    let mut engine = Engine::connect(&cluster.url("small"), &EtcdOptions::default()).unwrap();
    let wide = PROGRAM.replace("note: String? <= 3", "note: String? <= 30000");
    let e = engine.install(accepted(&wide)).unwrap_err();
    assert_eq!(e.code, "E0577", "{e}");
    assert!(e.message.contains("`renote` (up to"), "{}", e.message);
    // The limit measured when the database was made: under 64 KiB.
    let limit: u64 = e
        .message
        .split("at most ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((32 * 1024..64 * 1024).contains(&limit), "{}", e.message);
    assert!(engine.program().is_none());
    let fits = PROGRAM.replace("note: String? <= 3", "note: String? <= 200");
    engine.install(accepted(&fits)).unwrap();
    engine
        .run("add", &["abcd".into(), "hhhhhh".into(), Value::Null])
        .unwrap();
    engine
        .run("renote", &["abcd".into(), "n".repeat(200).as_str().into()])
        .unwrap();
}
