//! Installing a changed program: compatible changes are applied (indexes
//! back-filled, bounds verified), incompatible ones refused, nothing half-applied.

use rqc::{Backend, Database, Error, OpenOptions, Value};

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
    match result {
        Err(Error::Runtime(e)) => {
            assert_eq!(e.code, "E0510");
            e.message
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
            flush_on_commit: true,
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
        "table Post { id: Int key  author: Int  tag: String  extra: Int? }\nquery post(id: Int) = Post[id]",
    ));
    assert!(
        message.contains("the columns or the key of `Post` changed"),
        "{message}"
    );
    let message = refusal(db.install_source(
        "app.rq",
        "table Other { id: Int key }\nquery o(id: Int) = Other[id]",
    ));
    assert!(
        message.contains("table `Post` is no longer declared"),
        "{message}"
    );
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
