//! Attacks on `String <= n` (issue #14): the holes an adversary found, each a test; mended ones pass, known ones are `#[ignore]`d with why.
//!
//! Mended: 1 (commits expect the schema generation, E0550; queries are not
//! clamped), 3 (ad-hoc mutations held to the limits; a load refused when
//! one row may not fit), 4, 5 (responses of any size etcd sends are
//! taken), 6, 7. Known: 2, 8.
//!
//! 1. A client whose program was bound before another client changed a
//!    length bound answers "absent" for a row it lists, and lists a row in
//!    a clamped range it is not in (a stale key limit); one opened before
//!    a bound was tightened writes past it, and `verify` does not see it.
//! 2. On etcd, a query whose keys are all within their bounds is a request
//!    larger than the cluster's gRPC server takes: no entry but a mutation
//!    is held to a request size at install.
//! 3. An ad-hoc mutation (the REPL's, `Engine::run_entry`) and a load run
//!    on etcd without the request-size proof an installed mutation needs.
//! 4. The editor's completions after `Table.` and on a row drop the bound.
//! 5. On etcd, a range of rows within their bounds is a response larger
//!    than rqc's client takes (4 MiB).
//! 6. An etcd database made before the request size was measured is held
//!    to 1.5 MiB whatever its cluster takes.
//! 7. E0576's help on an optional column gives a declaration that drops
//!    the `?`.
//! 8. On etcd, adding the bounds E0577 asks for to a table of more rows
//!    than `--max-txn-ops` cannot commit (E0564).

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::completions;
use rqc_plan::{EntryKind, Value};
use rqc_runtime::store::EtcdOptions;
use rqc_runtime::Engine;
use rqc_tests::{accepted, string_fields};

const CODES: &str = "\
table Code {
  code: String <= 4 key
  v: Int
}
mutation add(code: String, v: Int) = insert Code { code, v }
query by_code(c: String) = Code[c]
query all() = Code[code >= \"\"] |> take(10)
query above(c: String) = Code[code > c] |> take(10)
";

/// Hole 1. Loosening a bound is a legal install; a second client of the
/// same database still runs the program it opened, whose key limit (27
/// bytes for `Code`) says a 30-byte code cannot exist. It lists the row
/// and, asked for it by key, answers that there is none, without a read;
/// and a range whose end it clamps to that limit (`code > "c" × 31`)
/// lists the row though it is below. A stale reader's runs are therefore
/// refused (E0550) until it opens the database again.
#[test]
fn a_reader_opened_before_a_bound_was_loosened_finds_the_rows_it_lists() {
    let url = rqc_tests::etcd::fresh_url();
    let mut installer = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    installer.install(accepted(CODES)).unwrap();
    let reader = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    assert!(reader.program().is_some());

    installer
        .install(accepted(&CODES.replace("String <= 4", "String <= 64")))
        .unwrap();
    let long = "c".repeat(30);
    installer
        .run("add", &[long.as_str().into(), 1.into()])
        .unwrap();

    // The reader's program was proved for the old schema: each of its runs
    // is refused as stale (E0550, compared in the run's first request),
    // never answered from the old limits.
    let longer = "c".repeat(31);
    for (name, args) in [
        ("all", vec![]),
        ("above", vec![longer.as_str().into()]),
        ("by_code", vec![long.as_str().into()]),
    ] {
        let refused = reader.run(name, &args).unwrap_err();
        assert_eq!(refused.code, "E0550", "{name}: {refused}");
    }
    // Opened again, it lists the row and finds it by key.
    let reader = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    let listed = string_fields(&reader.run("all", &[]).unwrap().value, "code");
    assert_eq!(listed, std::slice::from_ref(&long));
    let found = reader.run("by_code", &[long.as_str().into()]).unwrap();
    assert_eq!(found.value.field("code"), Some(&Value::from(long.as_str())));
}

/// Hole 2. On a cluster started with `--max-request-bytes=65536` (whose
/// gRPC server then takes messages of at most 64 KiB + 512 KiB) a query is
/// installed without any proof of its requests' size, and a key within
/// its bound (300,000 `\0` bytes, escaped to 600,003) is a read the
/// cluster refuses (E0572, "received message larger than max"). The `in`
/// list is the same hole without escapes: 120 keys of 5,000 bytes go as
/// one batch of 600 KB. (Reads are not raft proposals, so etcd's own
/// --max-request-bytes does not apply to them: only the gRPC limit does.)
#[test]
#[ignore = "known (#14): a query's requests are held by gRPC's message limit only; the request-size proof covers mutations' commits"]
fn on_etcd_a_query_within_its_bounds_fits_the_request_size() {
    let cluster = rqc_tests::etcd::cluster_taking(64 * 1024);
    let source = "\
table Big {
  code: String <= 300000 key
}
table Mid {
  code: String <= 5000 key
}
query big(c: String) = Big[c]
query mids(cs: [String; <= 120]) = Mid[code in cs]
";
    let mut engine = Engine::connect(&cluster.url("q"), &EtcdOptions::default()).unwrap();
    let installed = engine.install(accepted(source));
    // Refusing the program at install (as E0577 does for mutations) is
    // one mend; the other is to answer.
    if let Err(e) = installed {
        assert!(e.code.starts_with("E05"), "{e}");
        return;
    }
    let zeros = "\0".repeat(300_000);
    let big = engine.run("big", &[zeros.as_str().into()]);
    let keys: Vec<Value> = (0..120)
        .map(|i| Value::from(format!("{i:04}{}", "m".repeat(4996)).as_str()))
        .collect();
    let mids = engine.run("mids", &[Value::List(keys)]);
    let shown = |out: &Result<rqc_runtime::Output, rqc_runtime::RuntimeError>| match out {
        Ok(o) => format!("{:?}", o.value),
        Err(e) => format!("{}: {}", e.code, e.message),
    };
    assert!(
        matches!(&big, Ok(o) if o.value == Value::Null)
            && matches!(&mids, Ok(o) if o.value == Value::List(vec![])),
        "a key within `Big.code <= 300000`: {}\n120 keys within `Mid.code <= 5000`: {}",
        shown(&big),
        shown(&mids)
    );
}

/// Hole 3. An installed program may leave a table unbounded when no
/// mutation touches it (queries only); the REPL then runs an ad-hoc
/// mutation of it with `Engine::run_entry`, which neither E0577 nor E0570
/// holds: the commit goes as far as the runtime's own size check (or the
/// cluster's refusal) instead of being refused unproved.
#[test]
fn on_etcd_an_ad_hoc_mutation_is_held_to_the_request_size_rule() {
    let mut engine = rqc_tests::etcd::engine();
    let installed = "\
table Doc {
  id: Int key
  body: String
}
query doc(id: Int) = Doc[id]
";
    engine.install(accepted(installed)).unwrap();
    let adhoc = accepted(&format!(
        "{installed}mutation put(id: Int, body: String) = insert Doc {{ id, body }}\n"
    ));
    let entry = adhoc
        .entries
        .iter()
        .find(|e| e.name == "put" && e.kind == EntryKind::Mutation)
        .unwrap()
        .clone();
    let body = "b".repeat(2 * 1024 * 1024);
    let e = engine
        .run_entry(&entry, &[1.into(), body.as_str().into()])
        .map(|o| o.value)
        .unwrap_err();
    assert_eq!(
        e.code, "E0577",
        "an unproved commit, refused as {}: {}",
        e.code, e.message
    );
}

/// Hole 4 (front end). Completion after `Account.` and on a row's field
/// shows `code: String`, not its bound, where `:schema`, `rqc repl --db`
/// and completion inside brackets show `String <= 4`.
#[test]
fn completion_details_keep_the_length_bound() {
    let source = "\
table Account {
  code: String <= 4 key
  v: Int
}
query q(c: String) = Account.";
    let analysis = Analysis::new(&[("a.rq".to_string(), source.to_string())]);
    let details: Vec<(String, String)> = completions(&analysis, "a.rq", source, source.len())
        .into_iter()
        .map(|c| (c.label, c.detail))
        .collect();
    let code = details
        .iter()
        .find(|(l, _)| l == "code")
        .expect("`code` is offered");
    assert!(code.1.contains("<= 4"), "after `Account.`: {details:?}");

    let row = "\
table Account {
  code: String <= 4 key
  v: Int
}
query q(c: String) = Account[c] |> map(a => a.";
    let analysis = Analysis::new(&[("r.rq".to_string(), row.to_string())]);
    let details: Vec<(String, String)> = completions(&analysis, "r.rq", row, row.len())
        .into_iter()
        .map(|c| (c.label, c.detail))
        .collect();
    let code = details
        .iter()
        .find(|(l, _)| l == "code")
        .expect("`code` is offered");
    assert!(code.1.contains("<= 4"), "on a row: {details:?}");
}

/// Hole 5. The answers are not bounded either: rqc's etcd client takes
/// responses of at most 4 MiB (tonic's default receive limit, which
/// `store::etcd` leaves as it is), and a query over rows within their
/// bounds (40 rows of `body: String <= 120000`, each inserted by a
/// mutation proved to fit at install) reads more in one range.
#[test]
fn on_etcd_a_range_of_bounded_rows_is_answered() {
    let mut engine = rqc_tests::etcd::engine();
    let source = "\
table Doc {
  id: Int key
  body: String <= 120000
}
mutation put(id: Int, body: String) = insert Doc { id, body }
query docs() = Doc[id >= 0] |> take(40)
";
    engine.install(accepted(source)).unwrap();
    let body = "d".repeat(120_000);
    for id in 0..40 {
        engine
            .run("put", &[id.into(), body.as_str().into()])
            .unwrap();
    }
    let out = engine.run("docs", &[]);
    match out {
        Ok(o) => assert!(
            matches!(&o.value, Value::List(rows) if rows.len() == 40),
            "{:?}",
            o.stats
        ),
        Err(e) => panic!(
            "40 rows within their bounds, refused: {}: {}",
            e.code, e.message
        ),
    }
}

/// Hole 3, by `Database::load` (and so `rqc load` and `rqc restore`): a
/// table no mutation writes is not proved at install, and one row within
/// its bounds is a commit larger than the cluster takes (the row and the
/// three index entries that copy it, 2.4 MB). Mended: the load is refused
/// before anything is written (E0577, with the figure), and a table whose
/// rows do fit loads.
#[test]
fn on_etcd_a_load_whose_row_may_not_fit_is_refused_before_anything_is_written() {
    let mut engine = rqc_tests::etcd::engine();
    let source = "\
table Doc {
  id: Int key
  n: Int
  body: String <= 600000
  index by_n (n)
  index by_n_id (n, id)
  index by_id_n (id, n)
}
table Note {
  id: Int key
  body: String <= 1000
}
query doc(id: Int) = Doc[id]
query note(id: Int) = Note[id]
";
    engine.install(accepted(source)).unwrap();
    let body = "b".repeat(600_000);
    let mut rows: rqc_runtime::LoadRows =
        vec![(1, Ok(vec![1.into(), 2.into(), body.as_str().into()]))];
    let e = engine.load("Doc", &mut rows, &mut |_| {}).unwrap_err();
    assert_eq!(e.code, "E0577", "{e}");
    assert!(
        e.message.contains("one row of `Doc` may need"),
        "{}",
        e.message
    );
    assert_eq!(engine.run("doc", &[1.into()]).unwrap().value, Value::Null);
    let mut rows: rqc_runtime::LoadRows = (1..=50)
        .map(|i| {
            (
                i as usize,
                Ok(vec![i.into(), "n".repeat(1000).as_str().into()]),
            )
        })
        .collect();
    let report = engine.load("Note", &mut rows, &mut |_| {}).unwrap();
    assert_eq!(report.written, 50, "{report:?}");
}

/// Hole 6. A database made before rqc measured the request size (its
/// marker has no `max_request_bytes`, as every etcd database made by the
/// previous rqc) is assumed to be on a cluster taking etcd's default
/// 1.5 MiB, whatever the cluster takes: on one started with
/// `--max-request-bytes=65536`, a mutation is proved against 1.5 MiB at
/// install and its commit (a 100,000-byte row) is refused by the cluster.
/// Measuring is harmless (a transaction that is never applied): a marker
/// without the figure could be measured at connect.
#[test]
fn on_etcd_a_database_made_before_the_measure_is_held_to_its_cluster() {
    let cluster = rqc_tests::etcd::cluster_taking(64 * 1024);
    let url = cluster.url("old");
    drop(Engine::connect(&url, &EtcdOptions::default()).unwrap());
    // The marker as the previous rqc wrote it: no request size.
    let marker = cluster.etcdctl(&["get", "old/store", "--print-value-only"]);
    let mut fields: serde_json::Value = serde_json::from_str(marker.trim()).unwrap();
    assert!(
        fields["max_request_bytes"].as_u64().unwrap() < 64 * 1024,
        "{marker}"
    );
    fields.as_object_mut().unwrap().remove("max_request_bytes");
    cluster.etcdctl(&["put", "old/store", &fields.to_string()]);

    let mut engine = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    let source = "\
table Doc {
  id: Int key
  body: String <= 100000
}
mutation put(id: Int, body: String) = insert Doc { id, body }
";
    if let Err(e) = engine.install(accepted(source)) {
        // Proved against the cluster's own limit: refused at install.
        assert_eq!(e.code, "E0577", "{e}");
        return;
    }
    let body = "b".repeat(100_000);
    let out = engine.run("put", &[1.into(), body.as_str().into()]);
    assert!(
        out.is_ok(),
        "installed as proved to fit, refused at commit: {}",
        out.err()
            .map(|e| format!("{}: {}", e.code, e.message))
            .unwrap_or_default()
    );
}

/// Hole 1, writing: a client opened before a bound was tightened still
/// writes past it (its program allows 64 bytes), so the database holds a code of 30
/// bytes under `code: String <= 4`; the installer's point read of it
/// answers "absent", and `verify`, which checks every row against its
/// table, does not see that the row breaks the bound every read now
/// relies on.
#[test]
fn a_writer_opened_before_a_bound_was_tightened_is_held_to_it_or_verify_sees_it() {
    let url = rqc_tests::etcd::fresh_url();
    let mut installer = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    installer
        .install(accepted(&CODES.replace("String <= 4", "String <= 64")))
        .unwrap();
    let writer = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    installer.install(accepted(CODES)).unwrap();
    let long = "w".repeat(30);
    let wrote = writer.run("add", &[long.as_str().into(), 1.into()]);
    if wrote.is_err() {
        // Refusing a stale program's write is the mend.
        return;
    }
    let found = installer
        .run("by_code", &[long.as_str().into()])
        .unwrap()
        .value;
    let verified = installer.verify().unwrap();
    assert!(
        !verified.is_sound(),
        "a 30-byte code is stored under `String <= 4` (the installer's read finds {found:?}), and verify finds nothing: {verified:?}"
    );
}

/// Hole 7 (a message). E0576's help on an optional column says to declare
/// `note: String <= 6`, which drops its `?`: a program that does as told
/// no longer checks (E0401: the mutation writes a `String?` into it), and
/// with that fixed too it is refused at install (E0510, the column changed). The help should keep the type
/// as declared (`note: String? <= 6`).
#[test]
fn the_help_of_a_value_too_long_for_an_optional_column_installs() {
    let source = "\
table Account {
  code: String <= 4 key
  note: String? <= 3
}
mutation add(code: String, note: String?) = insert Account { code, note }
";
    let mut engine = Engine::in_memory();
    engine.install(accepted(source)).unwrap();
    let e = engine
        .run("add", &["a".into(), "ééé".into()])
        .map(|o| o.value)
        .unwrap_err();
    assert_eq!(e.code, "E0576");
    // The declaration the help gives, in place of the old one.
    let told = e
        .help
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("{}", e.help))
        .to_string();
    let fixed = source.replace("note: String? <= 3", &told);
    let compiled = rqc_compiler::compile(&[("app.rq".to_string(), fixed)]);
    let codes: Vec<&str> = compiled
        .diagnostics
        .iter()
        .map(|d| d.code.as_ref())
        .collect();
    assert!(
        codes.is_empty(),
        "the help says `{told}`, and the program then has {codes:?}"
    );
    let installed = engine
        .install(compiled.program)
        .map_err(|e| format!("{}: {}", e.code, e.message));
    assert!(installed.is_ok(), "the help says `{told}`: {installed:?}");
    engine.run("add", &["a".into(), "ééé".into()]).unwrap();
}

/// Hole 8. E0577 tells the user of an etcd database to declare length
/// bounds; on a table holding more rows than the cluster's
/// `--max-txn-ops` (1,024 here) that install cannot commit: the migration
/// reads every row of every table in the install's one transaction, and
/// each row read is a compare of its commit (E0564). Checking a bound
/// needs the rows read, not each one held unchanged by a compare of the
/// same commit (or, reading them in pages, a guard such as the catalog's
/// key compared at the end).
#[test]
#[ignore = "known (#14): a migration reads every row of a table in one transaction, each a compare in its commit; on etcd it is refused past --max-txn-ops"]
fn on_etcd_a_bound_is_added_to_a_table_of_many_rows() {
    let mut engine = rqc_tests::etcd::engine();
    let unbounded = "\
table Tag {
  id: Int key
  name: String
}
query tag(id: Int) = Tag[id]
";
    engine.install(accepted(unbounded)).unwrap();
    let mut rows: rqc_runtime::LoadRows = (0..1500)
        .map(|i| {
            (
                i as usize + 1,
                Ok(vec![Value::Int(i), format!("t{i}").as_str().into()]),
            )
        })
        .collect();
    let report = engine.load("Tag", &mut rows, &mut |_| {}).unwrap();
    assert_eq!(report.written, 1500);
    // As E0577 asks: a bound, then a mutation of the table.
    let bounded = unbounded.replace("name: String", "name: String <= 200")
        + "mutation rename(id: Int, name: String) = update Tag[id] { name: name }\n";
    let installed = engine.install(accepted(&bounded));
    assert!(
        installed.is_ok(),
        "a bound every stored value meets, on 1,500 rows: {:?}",
        installed.map_err(|e| format!("{}: {}", e.code, e.message))
    );
}
