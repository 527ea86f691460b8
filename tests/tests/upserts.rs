//! `upsert` end to end on every backend (the embedded stores and etcd): over new and existing keys, the same key twice in one mutation, unique values, references, bounds at their limit, counters and aggregates — each run within its bound, and every index, counter, reference and aggregate equal to what the rows imply after every run, committed or refused.

use rqc_plan::Value;
use rqc_tests::stores::{each_store, Db};

const PROGRAM: &str = "
table Owner {
  id: Int key
  name: String <= 20
}
table Pet {
  id: Int key
  owner: Int ref Owner
  tag: String <= 20 unique
  weight: Int
  age: Int = 1
  note: String? <= 20
  index by_owner (owner)
  bound owner <= 2
}
aggregate pets_of = count(Pet) by owner
aggregate weight_of = sum(Pet.weight) by owner
aggregate heaviest = max(Pet.weight) by owner

mutation add_owner(id: Int) = insert Owner { id, name: \"\" }
mutation put(id: Int, owner: Int, tag: String, weight: Int) = upsert Pet { id, owner, tag, weight }
mutation put_noted(id: Int, owner: Int, tag: String, weight: Int, note: String) =
  upsert Pet { id, owner, tag, weight, note, age: 9 }
mutation put_twice(id: Int, owner: Int, w1: Int, w2: Int) = {
  upsert Pet { id, owner, tag: \"first\", weight: w1 };
  upsert Pet { id, owner, tag: \"second\", weight: w2 }
}
mutation put_then_fail(id: Int, owner: Int, tag: String) = {
  upsert Pet { id, owner, tag: \"ok\", weight: 1 };
  upsert Pet { id: id + 1, owner, tag, weight: 1 }
}
mutation drop_owner(id: Int) = delete Owner[id]
query pet(id: Int) = Pet[id]
query count_of(owner: Int) = pets_of[owner]
query weight(owner: Int) = weight_of[owner]
query max_weight(owner: Int) = heaviest[owner]
";

fn put(db: &Db, id: i64, owner: i64, tag: &str, weight: i64) -> Value {
    db.value("put", &[id.into(), owner.into(), tag.into(), weight.into()])
}

fn field(db: &Db, id: i64, name: &str) -> Value {
    let pet = db.value("pet", &[id.into()]);
    pet.field(name)
        .cloned()
        .unwrap_or_else(|| panic!("{}: no pet {id}: {pet}", db.on))
}

fn aggregates(db: &Db, owner: i64) -> (Value, Value, Value) {
    (
        db.value("count_of", &[owner.into()]),
        db.value("weight", &[owner.into()]),
        db.value("max_weight", &[owner.into()]),
    )
}

fn owners(db: &Db, ids: &[i64]) {
    for &id in ids {
        db.value("add_owner", &[id.into()]);
    }
}

#[test]
fn new_keys_are_inserted_with_defaults_and_existing_ones_keep_what_is_left_out() {
    each_store(PROGRAM, |db| {
        owners(&db, &[1]);
        // New: inserted, `age` its default, `note` none.
        assert_eq!(put(&db, 1, 1, "a", 10), Value::Int(1));
        assert_eq!(field(&db, 1, "age"), Value::Int(1));
        assert_eq!(field(&db, 1, "note"), Value::Null);
        // Existing: the columns named change, the others keep their values
        // (not the defaults): `age` 9 and the note stay.
        assert_eq!(
            db.value(
                "put_noted",
                &[1.into(), 1.into(), "a".into(), 12.into(), "n".into()]
            ),
            Value::Int(1)
        );
        assert_eq!(put(&db, 1, 1, "b", 11), Value::Int(1));
        assert_eq!(field(&db, 1, "age"), Value::Int(9));
        assert_eq!(field(&db, 1, "note"), Value::from("n"));
        assert_eq!(field(&db, 1, "tag"), Value::from("b"));
        // The same values again: nothing changes, nothing is written.
        let same = db
            .run("put", &[1.into(), 1.into(), "b".into(), 11.into()])
            .unwrap();
        assert_eq!((same.value, same.written), (Value::Int(0), 0));
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(1), Value::Int(11), Value::Int(11))
        );
    });
}

#[test]
fn the_same_key_twice_in_one_mutation_is_inserted_then_updated() {
    each_store(PROGRAM, |db| {
        owners(&db, &[1]);
        let output = db
            .run("put_twice", &[5.into(), 1.into(), 3.into(), 8.into()])
            .unwrap();
        assert_eq!((output.value, output.written), (Value::Int(1), 1));
        assert_eq!(field(&db, 5, "tag"), Value::from("second"));
        // The aggregates saw the insert then the update: one row, weight 8.
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(1), Value::Int(8), Value::Int(8))
        );
        // Over an existing key, twice: the second sees the first's row
        // (its `first` tag freed by the second).
        db.value("put_twice", &[5.into(), 1.into(), 20.into(), 2.into()]);
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(1), Value::Int(2), Value::Int(2))
        );
        // `first` and `second` are free again: another pet may take them.
        put(&db, 6, 1, "first", 1);
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(2), Value::Int(3), Value::Int(2))
        );
    });
}

#[test]
fn a_unique_value_another_row_holds_is_refused_and_nothing_is_written() {
    each_store(PROGRAM, |db| {
        owners(&db, &[1, 2]);
        put(&db, 1, 1, "a", 1);
        put(&db, 2, 2, "b", 2);
        // The update path: pet 2 may not take pet 1's tag.
        assert_eq!(
            db.refused("put", &[2.into(), 2.into(), "a".into(), 5.into()]),
            "E0502"
        );
        // The insert path: a new pet neither.
        assert_eq!(
            db.refused("put", &[3.into(), 2.into(), "a".into(), 5.into()]),
            "E0502"
        );
        // A first upsert that succeeds is undone with the second's refusal.
        assert_eq!(
            db.refused("put_then_fail", &[7.into(), 1.into(), "b".into()]),
            "E0502"
        );
        assert_eq!(db.value("pet", &[7.into()]), Value::Null);
        assert_eq!(
            aggregates(&db, 2),
            (Value::Int(1), Value::Int(2), Value::Int(2))
        );
    });
}

#[test]
fn an_upsert_that_changes_a_reference_moves_its_counters() {
    each_store(PROGRAM, |db| {
        owners(&db, &[1, 2, 3]);
        put(&db, 1, 1, "a", 4);
        put(&db, 2, 1, "b", 6);
        // Pet 2 moves to owner 2: owner 1's counters and aggregates drop,
        // owner 2's rise.
        put(&db, 2, 2, "b", 6);
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(1), Value::Int(4), Value::Int(4))
        );
        assert_eq!(
            aggregates(&db, 2),
            (Value::Int(1), Value::Int(6), Value::Int(6))
        );
        // Owner 1 is referenced once more; owner 3 not at all.
        assert_eq!(db.refused("drop_owner", &[1.into()]), "E0506");
        assert_eq!(db.value("drop_owner", &[3.into()]), Value::Int(1));
        // A reference to a row that does not exist: refused on either path.
        assert_eq!(
            db.refused("put", &[2.into(), 3.into(), "b".into(), 6.into()]),
            "E0503"
        );
        assert_eq!(
            db.refused("put", &[9.into(), 3.into(), "z".into(), 6.into()]),
            "E0503"
        );
        put(&db, 1, 2, "a", 4);
        assert_eq!(db.value("drop_owner", &[1.into()]), Value::Int(1));
    });
}

#[test]
fn at_the_bound_the_insert_path_is_refused_and_the_update_path_within_the_group_is_not() {
    each_store(PROGRAM, |db| {
        owners(&db, &[1, 2]);
        put(&db, 1, 1, "a", 1);
        put(&db, 2, 1, "b", 2);
        // Owner 1 has its two pets (`bound owner <= 2`): a third is refused.
        assert_eq!(
            db.refused("put", &[3.into(), 1.into(), "c".into(), 3.into()]),
            "E0504"
        );
        // Changing one of the two, within the group, is not.
        assert_eq!(put(&db, 2, 1, "b2", 7), Value::Int(1));
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(2), Value::Int(8), Value::Int(7))
        );
        // Into a full group from another: refused; out of it: room again.
        put(&db, 3, 2, "c", 3);
        put(&db, 4, 2, "d", 4);
        assert_eq!(
            db.refused("put", &[4.into(), 1.into(), "d".into(), 4.into()]),
            "E0504"
        );
        assert_eq!(
            db.refused("put", &[2.into(), 2.into(), "b2".into(), 7.into()]),
            "E0504"
        );
        assert_eq!(field(&db, 2, "owner"), Value::Int(1));
        // Pet 1 leaves owner 1 for a new owner: owner 1 has room again.
        db.value("add_owner", &[5.into()]);
        put(&db, 1, 5, "a", 1);
        assert_eq!(put(&db, 3, 1, "c", 3), Value::Int(1));
        assert_eq!(
            aggregates(&db, 1),
            (Value::Int(2), Value::Int(10), Value::Int(7))
        );
    });
}

/// Through the library: an upsert and a step prepared once and run many
/// times, the errors with their codes.
#[test]
fn the_library_runs_upserts_and_steps() {
    let mut db = rqc::Database::in_memory();
    db.install_source(
        "shop.rq",
        "table Item { id: Int key  name: String unique  stock: Int = 0 }
         mutation put(id: Int, name: String) = upsert Item { id, name }
         mutation sell(id: Int, n: Int) = update Item[id] { stock -= n }
         query item(id: Int) = Item[id]",
    )
    .unwrap();
    let put = db.prepare("put").unwrap();
    let sell = db.prepare("sell").unwrap();
    for round in 0..3 {
        put.run(&[1.into(), format!("lamp{round}").into()]).unwrap();
        sell.run(&[1.into(), 2.into()]).unwrap();
    }
    let item = db.run("item", &[1.into()]).unwrap().value;
    assert_eq!(item.field("name"), Some(&Value::from("lamp2")));
    assert_eq!(item.field("stock"), Some(&Value::Int(-6)));
    put.run(&[2.into(), "desk".into()]).unwrap();
    let error = put.run(&[1.into(), "desk".into()]).unwrap_err();
    assert_eq!(error.code(), "E0502", "{error}");
    let error = sell.run(&[1.into(), i64::MAX.into()]).unwrap_err();
    assert_eq!(error.code(), "E0530", "{error}");
    assert!(error.to_string().contains("Item.stock"), "{error}");
}
