//! Installing a changed program: compatible changes are applied (indexes
//! back-filled, bounds verified), incompatible ones refused, nothing half-applied.

use rqc::{Backend, Database, Durability, Error, OpenOptions, Value};

const V1: &str = "
table Post { id: Int key  author: Int  tag: String }
mutation add(id: Int, author: Int, tag: String) = insert Post { id, author, tag }
query post(id: Int) = Post[id]
";

fn with_index(extra: &str) -> String {
    format!(
        "table Post {{ id: Int key  author: Int  tag: String  {extra} }}
mutation add(id: Int, author: Int, tag: String) = insert Post {{ id, author, tag }}
query post(id: Int) = Post[id]
query by_author(a: Int) = Post.by_author[a] |> take(10)"
    )
}

fn refusal<T>(result: Result<T, Error>) -> String {
    refused_with("E0510", result)
}

fn refused_with<T>(code: &str, result: Result<T, Error>) -> String {
    match result {
        Err(Error::Runtime(e)) => {
            assert_eq!(e.code, code, "{}", e.message);
            format!("{}\n{}", e.message, e.help)
        }
        Err(other) => panic!("not a runtime error: {other}"),
        Ok(_) => panic!("the change was accepted"),
    }
}

fn seeded(backend: Backend, dir: &std::path::Path) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability: Durability::Full,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    db.install_source("app.rq", V1).unwrap();
    for (id, author) in [(1, 7), (2, 7), (3, 7), (4, 8)] {
        db.run("add", &[id.into(), author.into(), format!("t{id}").into()])
            .unwrap();
    }
    db
}

#[test]
fn a_new_index_is_back_filled_and_a_new_bound_verified() {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let mut db = seeded(backend, dir.path());
        db.install_source("app.rq", &with_index("index by_author (author)"))
            .unwrap();
        let rows = db.run("by_author", &[7.into()]).unwrap().rows().to_vec();
        assert_eq!(rows.len(), 3, "the index holds the rows written before it");
        // Author 7 has three posts: a bound of 2 is refused, and nothing changes.
        let message = refusal(db.install_source(
            "app.rq",
            &with_index("index by_author (author)  bound author <= 2"),
        ));
        assert!(
            message.contains("`bound author <= 2` on `Post` is broken by 7 (3 rows)"),
            "{message}"
        );
        db.run("add", &[5.into(), 7.into(), "t5".into()]).unwrap();
        // A bound of 4 holds, and is enforced from then on.
        db.install_source(
            "app.rq",
            &with_index("index by_author (author)  bound author <= 4"),
        )
        .unwrap();
        let Err(Error::Runtime(e)) = db.run("add", &[6.into(), 7.into(), "t6".into()]) else {
            panic!("the fifth post of author 7 is refused")
        };
        assert_eq!(e.code, "E0504");
        db.run("add", &[6.into(), 8.into(), "t6".into()]).unwrap();
    }
}

#[test]
fn a_unique_index_over_duplicates_and_a_changed_column_are_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = seeded(Backend::Redb, dir.path());
    let message = refusal(db.install_source(
        "app.rq",
        &with_index("index by_author (author)  unique (author)"),
    ));
    assert!(
        message.contains("unique index `Post.author` finds 7 twice"),
        "{message}"
    );
    // Nothing of that attempt was applied: the back-filled plain index is not there either.
    let message = refusal(db.install_source(
        "app.rq",
        "table Post { id: Int key  author: Int  tag: Int }\nquery post(id: Int) = Post[id]",
    ));
    assert!(
        message.contains("the columns or the key of `Post` changed"),
        "{message}"
    );
    let message = refused_with(
        "E0519",
        db.install_source(
            "app.rq",
            "table Other { id: Int key }\nquery o(id: Int) = Other[id]",
        ),
    );
    assert!(message.contains("would drop"), "{message}");
    assert!(message.contains("--migrate 'table:Post'"), "{message}");
    db.install_source("app.rq", V1).unwrap();
    assert_eq!(
        db.run("post", &[1.into()]).unwrap().rows()[0].field("tag"),
        Some(&Value::from("t1"))
    );
}

#[test]
fn a_small_table_maximum_is_verified() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = seeded(Backend::Redb, dir.path());
    let small = |max: u32| V1.replace("table Post {", &format!("small table Post max {max} {{"));
    let message = refusal(db.install_source("app.rq", &small(3)));
    assert!(
        message.contains("`Post` holds 4 rows, more than `max 3`"),
        "{message}"
    );
    db.install_source("app.rq", &small(5)).unwrap();
    db.run("add", &[9.into(), 1.into(), "t9".into()]).unwrap();
    let Err(Error::Runtime(e)) = db.run("add", &[10.into(), 1.into(), "t10".into()]) else {
        panic!("the sixth row is refused")
    };
    assert_eq!(e.code, "E0505");
}

/// Every row the database holds passes `verify`.
fn assert_sound(db: &Database) {
    let found = db.verify().unwrap();
    assert!(found.is_sound(), "{:?}", found.problems);
}

#[test]
fn columns_are_added_optional_or_with_a_default_and_every_row_reads_them() {
    for backend in Backend::ON_DISK {
        let dir = tempfile::tempdir().unwrap();
        let mut db = seeded(backend, dir.path());
        // An optional column: the stored rows read none.
        let v2 = "table Post { id: Int key  author: Int  tag: String  note: String? }
mutation add(id: Int, author: Int, tag: String, note: String?) = insert Post { id, author, tag, note }
query post(id: Int) = Post[id]";
        db.install_source("app.rq", v2).unwrap();
        let row = db.run("post", &[1.into()]).unwrap().rows()[0].clone();
        assert_eq!(row.field("note"), Some(&Value::Null), "{backend:?}");
        assert_eq!(row.field("tag"), Some(&Value::from("t1")));
        db.run("add", &[5.into(), 7.into(), "t5".into(), "hi".into()])
            .unwrap();
        assert_eq!(
            db.run("post", &[5.into()]).unwrap().rows()[0].field("note"),
            Some(&Value::from("hi"))
        );
        assert_sound(&db);
        // A column with a default, and an index over it built at once: the
        // index's entries hold the rewritten rows.
        let v3 =
            "table Post { id: Int key  author: Int  tag: String  note: String?  score: Int = -1
  index by_score (score) }
query post(id: Int) = Post[id]
query low(s: Int) = Post.by_score[s] |> take(10)";
        db.install_source("app.rq", v3).unwrap();
        let low = db.run("low", &[(-1).into()]).unwrap();
        assert_eq!(low.rows().len(), 5, "{backend:?}");
        assert!(low
            .rows()
            .iter()
            .all(|r| r.field("score") == Some(&Value::Int(-1))));
        assert_eq!(low.rows()[4].field("note"), Some(&Value::from("hi")));
        assert_sound(&db);
        // A new column that neither is optional nor has a default is refused.
        let message = refusal(db.install_source(
            "app.rq",
            &v3.replace("score: Int = -1", "score: Int = -1  rank: Int"),
        ));
        assert!(message.contains("`Post.rank` has no value"), "{message}");
        assert!(message.contains("`rank: Int?`"), "{message}");
    }
}

#[test]
fn an_older_program_never_drops_a_rule_without_migrate() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = seeded(Backend::Lmdb, dir.path());
    let v2 = "table Post { id: Int key  author: Int  tag: String unique  index by_author (author)  bound author <= 3 }
mutation add(id: Int, author: Int, tag: String) = insert Post { id, author, tag }
query post(id: Int) = Post[id]";
    db.install_source("app.rq", v2).unwrap();
    let duplicate = || db_add(9, 8, "t1");
    // v1 again (an older program) would drop the unique index and the bound.
    let message = refused_with("E0519", db.install_source("app.rq", V1));
    assert!(message.contains("index:Post.tag"), "{message}");
    assert!(message.contains("bound:Post(author)"), "{message}");
    assert!(
        message.contains(
            "--migrate 'index:Post.tag' --migrate 'index:Post.by_author' --migrate 'bound:Post(author)'"
        ),
        "{message}"
    );
    // Still enforced.
    let Err(Error::Runtime(e)) = duplicate()(&db) else {
        panic!("a duplicate tag is refused")
    };
    assert_eq!(e.code, "E0502");
    // A loosened bound is applied without a word.
    db.install_source("app.rq", &v2.replace("<= 3", "<= 10"))
        .unwrap();
    db_add(10, 7, "t10")(&db).unwrap();
    // Naming one drop is not enough for two.
    let files = [("app.rq".to_string(), V1.to_string())];
    let program = rqc::compile_installable(&files).unwrap().program;
    let message = refused_with(
        "E0519",
        db.install_dropping(program.clone(), &["index:Post.tag".into()]),
    );
    assert!(!message.contains("index:Post.tag,"), "{message}");
    db.install_dropping(
        program,
        &[
            "index:Post.tag".into(),
            "index:Post.by_author".into(),
            "bound:Post(author)".into(),
        ],
    )
    .unwrap();
    duplicate()(&db).unwrap();
    assert_sound(&db);
}

fn db_add(id: i64, author: i64, tag: &str) -> impl Fn(&Database) -> Result<rqc::Output, Error> {
    let tag = tag.to_string();
    move |db| db.run("add", &[id.into(), author.into(), tag.as_str().into()])
}

/// Posts with a column in the middle the next programs rename or drop,
/// and an index after it, whose positions a drop moves.
const WIDE: &str = "table Post { id: Int key  author: Int  legacy: String? <= 20  tag: String <= 20  index by_tag (tag) }
mutation add(id: Int, author: Int, tag: String) = insert Post { id, author, legacy: \"old\", tag }
query post(id: Int) = Post[id]
query tagged(t: String) = Post.by_tag[t] |> take(10)";

fn wide(backend: Backend, dir: &std::path::Path) -> Database {
    let db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            ..OpenOptions::default()
        },
    )
    .unwrap();
    stocked_wide(db)
}

fn stocked_wide(mut db: Database) -> Database {
    db.install_source("app.rq", WIDE).unwrap();
    for (id, tag) in [(1, "a"), (2, "b"), (3, "a")] {
        db.run("add", &[id.into(), 7.into(), tag.into()]).unwrap();
    }
    db
}

fn compiled(source: &str) -> rqc_plan::CompiledProgram {
    rqc_tests::accepted(source)
}

fn flags(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn a_column_is_renamed_and_another_dropped_on_every_store() {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        rename_and_drop(wide(backend, dir.path()), &format!("{backend:?}"));
    }
    let url = rqc_tests::etcd::fresh_url();
    rename_and_drop(stocked_wide(Database::connect(&url).unwrap()), "etcd");
}

fn rename_and_drop(mut db: Database, backend: &str) {
    {
        // Renamed: refused until the flag names it, with the flag in the help.
        let renamed = "table Post { id: Int key  author: Int  legacy: String? <= 20  label: String <= 20  index by_tag (label) }
mutation add(id: Int, author: Int, tag: String) = insert Post { id, author, legacy: \"old\", label: tag }
query post(id: Int) = Post[id]
query tagged(t: String) = Post.by_tag[t] |> take(10)";
        let message = refusal(db.install_source("app.rq", renamed));
        assert!(
            message.contains("--migrate 'rename:Post.tag=label'"),
            "{backend:?}: {message}"
        );
        db.install_dropping(compiled(renamed), &flags(&["rename:Post.tag=label"]))
            .unwrap();
        let row = db.run("post", &[1.into()]).unwrap().rows()[0].clone();
        assert_eq!(row.field("label"), Some(&Value::from("a")), "{backend:?}");
        assert_eq!(row.field("tag"), None);
        assert_eq!(db.run("tagged", &["a".into()]).unwrap().rows().len(), 2);
        assert_sound(&db);
        // The same flag again changes nothing (the column has its name).
        db.install_dropping(compiled(renamed), &flags(&["rename:Post.tag=label"]))
            .unwrap();
        // Dropped: `legacy`, before `label`, whose positions move down.
        let dropped = renamed
            .replace("legacy: String? <= 20  ", "")
            .replace("legacy: \\\"old\\\", ", "")
            .replace("legacy: \"old\", ", "");
        let message = refusal(db.install_source("app.rq", &dropped));
        assert!(
            message.contains("--migrate 'drop:Post.legacy'"),
            "{backend:?}: {message}"
        );
        db.install_dropping(compiled(&dropped), &flags(&["drop:Post.legacy"]))
            .unwrap();
        let row = db.run("post", &[3.into()]).unwrap().rows()[0].clone();
        assert_eq!(row.field("legacy"), None, "{backend:?}");
        assert_eq!(row.field("label"), Some(&Value::from("a")));
        assert_eq!(row.field("author"), Some(&Value::Int(7)));
        let tagged = db.run("tagged", &["a".into()]).unwrap();
        let ids: Vec<_> = tagged
            .rows()
            .iter()
            .map(|r| r.field("id").cloned())
            .collect();
        assert_eq!(
            ids,
            [Some(Value::Int(1)), Some(Value::Int(3))],
            "{backend:?}"
        );
        db.run("add", &[4.into(), 8.into(), "a".into()]).unwrap();
        assert_eq!(db.run("tagged", &["a".into()]).unwrap().rows().len(), 3);
        assert_sound(&db);
    }
}

/// A `unique` column's index and a `unique (a, b)`'s are named after
/// their columns: renaming the column renames them with it, under the one
/// `rename:` flag (they are built again from the rows), and uniqueness
/// holds under the new names. On every store and etcd.
#[test]
fn renaming_a_unique_column_takes_one_flag_and_keeps_it_unique() {
    let before = "table P { id: Int key  tag: String <= 9 unique  g: Int  unique (g, tag) }
mutation add(id: Int, tag: String <= 9) = insert P { id, tag, g: 1 }";
    let after = "table P { id: Int key  label: String <= 9 unique  g: Int  unique (g, label) }
mutation add(id: Int, tag: String <= 9) = insert P { id, label: tag, g: 1 }
query by(l: String <= 9) = P.label[l] |> map(p => p.id)
query by_g(l: String <= 9) = P.g_label[1, l] |> map(p => p.id)";
    let check = |mut db: Database, name: &str| {
        db.install_source("app.rq", before).unwrap();
        for (id, tag) in [(1, "a"), (2, "b")] {
            db.run("add", &[id.into(), tag.into()]).unwrap();
        }
        db.install_dropping(compiled(after), &flags(&["rename:P.tag=label"]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(db.run("by", &["b".into()]).unwrap().value, Value::Int(2));
        assert_eq!(db.run("by_g", &["a".into()]).unwrap().value, Value::Int(1));
        let taken = db.run("add", &[3.into(), "a".into()]);
        assert!(refused_with("E0502", taken).contains("label"), "{name}");
        db.run("add", &[3.into(), "c".into()]).unwrap();
        assert_eq!(db.run("by", &["c".into()]).unwrap().value, Value::Int(3));
        assert_sound(&db);
    };
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_with(
            dir.path(),
            OpenOptions {
                backend: Some(backend),
                ..OpenOptions::default()
            },
        )
        .unwrap();
        check(db, &format!("{backend:?}"));
    }
    check(
        Database::connect(&rqc_tests::etcd::fresh_url()).unwrap(),
        "etcd",
    );
}

#[test]
fn a_column_something_uses_is_not_dropped_and_a_bad_flag_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = wide(Backend::Lmdb, dir.path());
    let without_tag = "table Post { id: Int key  author: Int  legacy: String? <= 20 }
query post(id: Int) = Post[id]";
    let message = refused_with(
        "E0528",
        db.install_dropping(
            compiled(without_tag),
            &flags(&["drop:Post.tag", "index:Post.by_tag"]),
        ),
    );
    assert!(message.contains("index `Post.by_tag`"), "{message}");
    for (flag, why) in [
        ("rename:Post.tag", "rename:Table.old=new"),
        ("drop:Post", "drop:Table.column"),
    ] {
        let message = refused_with(
            "E0529",
            db.install_dropping(compiled(WIDE), &flags(&[flag])),
        );
        assert!(message.contains(why), "{flag}: {message}");
    }
    // A rename to a name the program does not declare.
    let renamed = WIDE
        .replace(
            "tag: String <= 20  index by_tag (tag)",
            "label: String <= 20  index by_tag (label)",
        )
        .replace("\"old\", tag }", "\"old\", label: tag }");
    let message = refused_with(
        "E0529",
        db.install_dropping(compiled(&renamed), &flags(&["rename:Post.tag=nope"])),
    );
    assert!(message.contains("no column `Post.nope`"), "{message}");
    // Nothing changed.
    assert_eq!(
        db.run("post", &[1.into()]).unwrap().rows()[0].field("tag"),
        Some(&Value::from("a"))
    );
    assert_sound(&db);
}

/// Dropping a table that references another takes its references off the
/// other's counters (adversary finding: the counter outlived the drop,
/// `verify` failed, and the referenced row could never be deleted again
/// once the table came back), on every store; a reference to a table
/// dropped with it, or a `none`, counts nothing.
#[test]
fn a_dropped_table_releases_the_rows_it_referenced() {
    let with_children = "table P { id: Int key }
table C { id: Int key  p: Int ref P  q: Int? ref P }
table D { id: Int key  c: Int ref C }
mutation addp(id: Int) = insert P { id }
mutation addc(id: Int, p: Int, q: Int?) = insert C { id, p, q }
mutation addd(id: Int, c: Int) = insert D { id, c }
mutation delp(id: Int) = delete P[id]";
    let parents = "table P { id: Int key }
mutation addp(id: Int) = insert P { id }
mutation delp(id: Int) = delete P[id]";
    for backend in Backend::ON_DISK {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open_with(
            dir.path(),
            OpenOptions {
                backend: Some(backend),
                ..OpenOptions::default()
            },
        )
        .unwrap();
        db.install_source("app.rq", with_children).unwrap();
        for id in [1, 2, 3] {
            db.run("addp", &[id.into()]).unwrap();
        }
        db.run("addc", &[1.into(), 1.into(), 1.into()]).unwrap();
        db.run("addc", &[2.into(), 1.into(), Value::Null]).unwrap();
        db.run("addc", &[3.into(), 2.into(), 3.into()]).unwrap();
        db.run("addd", &[1.into(), 3.into()]).unwrap();
        // P 1 is referenced three times, 2 once, 3 once.
        refused_with("E0506", db.run("delp", &[1.into()]));
        let files = [("app.rq".to_string(), parents.to_string())];
        let program = rqc::compile_installable(&files).unwrap().program;
        db.install_dropping(program, &["table:C".into(), "table:D".into()])
            .unwrap();
        assert_sound(&db);
        // Every row of P can go, and the database stays sound.
        for id in [1, 2, 3] {
            db.run("delp", &[id.into()]).unwrap();
        }
        assert_sound(&db);
        // The children's table back, empty: nothing references P.
        db.install_source("app.rq", with_children).unwrap();
        db.run("addp", &[1.into()]).unwrap();
        db.run("delp", &[1.into()]).unwrap();
        assert_sound(&db);
    }
}
