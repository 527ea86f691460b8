//! Generated keys through the CLI: `load` generating the keys a file leaves out, `dump` and `restore` carrying the counter, `verify` holding it past every key, and inserts from several processes at once each given its own key, in order.

use super::{rqc, stderr, stdout, write};

const NOTES: &str = "
table Note {
  id: Int key auto
  text: String
  stars: Int = 0
}
mutation add(text: String) = insert Note { text }
mutation remove(id: Int) = delete Note[id]
query note(id: Int) = Note[id]
";

fn key(out: &std::process::Output) -> i64 {
    assert!(out.status.success(), "{}", stderr(out));
    stdout(out)
        .trim()
        .parse()
        .expect("an insert into a `key auto` table prints its key")
}

#[test]
fn load_generates_keys_and_restore_carries_the_counter() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "notes.rq", NOTES);
    let db = dir.path().join("db").display().to_string();
    // A CSV header without the key nor the defaulted column.
    let csv = write(dir.path(), "notes.csv", "text\na\nb\n");
    let out = rqc(&["load", "--db", &db, &app, "Note", &csv]);
    assert!(out.status.success(), "{}", stderr(&out));
    // JSONL rows with and without a key: the one given moves the counter.
    let jsonl = write(
        dir.path(),
        "more.jsonl",
        "{\"text\": \"c\"}\n{\"id\": 40, \"text\": \"d\", \"stars\": 2}\n",
    );
    let out = rqc(&["load", "--db", &db, &app, "Note", &jsonl]);
    assert!(out.status.success(), "{}", stderr(&out));
    let note = |db: &str, id: &str| {
        stdout(&rqc(&[
            "run",
            "--db",
            db,
            "note",
            "--arg",
            &format!("id={id}"),
        ]))
    };
    assert!(
        note(&db, "3").contains("\"text\":\"c\""),
        "{}",
        note(&db, "3")
    );
    assert!(note(&db, "2").contains("\"stars\":0"), "{}", note(&db, "2"));
    assert_eq!(
        key(&rqc(&["run", "--db", &db, "add", "--arg", "text=e"])),
        41
    );
    // The largest key deleted: a restore of the dump does not give it again.
    let out = rqc(&["run", "--db", &db, "remove", "--arg", "id=41"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let saved = dir.path().join("saved").display().to_string();
    let out = rqc(&["dump", "--db", &db, "--out", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    let counters = std::fs::read_to_string(dir.path().join("saved/key_counters.json")).unwrap();
    assert_eq!(counters, "{\"Note\":41}");
    let restored = dir.path().join("restored").display().to_string();
    let out = rqc(&["restore", "--db", &restored, "--from", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        key(&rqc(&["run", "--db", &restored, "add", "--arg", "text=f"])),
        42
    );
    let out = rqc(&["verify", "--db", &restored]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A counters file that is not one is refused by its code.
    std::fs::write(dir.path().join("saved/key_counters.json"), "{\"Note\": -1}").unwrap();
    let again = dir.path().join("again").display().to_string();
    let out = rqc(&["restore", "--db", &again, "--from", &saved]);
    assert!(stderr(&out).contains("E0662"), "{}", stderr(&out));
}

#[test]
fn processes_inserting_at_once_each_get_their_own_key_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "notes.rq", NOTES);
    let db = dir.path().join("db").display().to_string();
    assert_eq!(
        key(&rqc(&[
            "run",
            "--db",
            &db,
            &app,
            "add",
            "--arg",
            "text=first"
        ])),
        1
    );
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                (0..5)
                    .map(|i| {
                        key(&rqc(&[
                            "run",
                            "--db",
                            &db,
                            "add",
                            "--arg",
                            &format!("text={w}.{i}"),
                        ]))
                    })
                    .collect::<Vec<i64>>()
            })
        })
        .collect();
    let mut all = vec![1];
    for worker in workers {
        let keys = worker.join().unwrap();
        // Each process's keys grow: the counter never goes back.
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        all.extend(keys);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=21).collect::<Vec<i64>>());
}
