//! Writes act on keys, not on stale row values, on every backend: a row
//! listed twice is deleted once, a second update sees the first one's
//! result, a write to a row already gone does nothing, and after every
//! committed mutation every counter equals the rows it counts.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions, Output, RuntimeError};
use rqc_tests::state::check_integrity;

const PROGRAM: &str = "
table Item {
  id: Int key
  grp: Int
  index by_grp (grp)
  bound grp <= 100
}
small table Slot max 3 { id: Int key }
table Owner { id: Int key }
table Pet {
  id: Int key
  owner: Int ref Owner
  name: String
  index by_owner (owner)
}

mutation add_items(grp: Int, ids: [Int; <= 100]) =
  ids |> map(i => insert Item { id: i, grp }) |> count()
mutation drop_items(ids: [Int; <= 100]) = delete (ids |> map(i => Item[i]) |> flatten())
query group(grp: Int) = Item.by_grp[grp] |> count()
query first_of(grp: Int) = Item.by_grp[grp] |> first()

mutation add_slot(id: Int) = insert Slot { id }
mutation drop_slots(ids: [Int; <= 10]) = delete (ids |> map(i => Slot[i]) |> flatten())
query slots() = Slot |> count()

mutation add_owner(id: Int) = insert Owner { id }
mutation drop_owners(ids: [Int; <= 10]) = delete (ids |> map(i => Owner[i]) |> flatten())
mutation add_pet(id: Int, owner: Int, name: String) = insert Pet { id, owner, name }
mutation drop_pets(ids: [Int; <= 10]) = delete (ids |> map(i => Pet[i]) |> flatten())
mutation rename_pets(ids: [Int; <= 10], name: String) =
  update (ids |> map(i => Pet[i]) |> flatten()) { name: name }
// Both updates name the row read before either: the second acts on the
// row as the first left it.
mutation rename_then_move(id: Int, name: String, owner: Int) = {
  let pet = Pet[id];
  update pet { name: name };
  update pet { owner: owner }
}
mutation move_twice(id: Int, a: Int, b: Int) = {
  let pet = Pet[id];
  update pet { owner: a };
  update pet { owner: b }
}
mutation drop_then_rename(id: Int, name: String) = {
  let pet = Pet[id];
  delete pet;
  update pet { name: name }
}
mutation drop_twice(id: Int) = { let pet = Pet[id]; delete pet; delete pet }
query pet(id: Int) = Pet[id]
query pets_of(owner: Int) = Pet.by_owner[owner] |> take(10)
";

struct Db {
    engine: Engine,
    schema: rqc_plan::Schema,
    backend: Backend,
}

impl Db {
    fn open(backend: Backend, dir: &std::path::Path) -> Db {
        let compilation = compile(&[("writes.rq".into(), PROGRAM.into())]);
        assert!(
            compilation.diagnostics.is_empty(),
            "{:?}",
            compilation.diagnostics
        );
        let options = OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        };
        let mut engine = Engine::open(dir, options).unwrap();
        engine.install(compilation.program.clone()).unwrap();
        Db {
            engine,
            schema: compilation.program.schema,
            backend,
        }
    }

    /// Runs an entry, within its bound; after a mutation every index and
    /// counter equals the rows.
    fn run(&self, name: &str, args: &[Value]) -> Result<Output, RuntimeError> {
        let output = self.engine.run(name, args);
        if let Ok(output) = &output {
            assert!(
                output.stats.seeks <= output.bound.seeks && output.stats.rows <= output.bound.rows,
                "{name}: {:?} over {:?}",
                output.stats,
                output.bound
            );
        }
        let integrity = check_integrity(self.engine.store(), &self.schema);
        assert_eq!(integrity, Ok(()), "{:?} after {name}{args:?}", self.backend);
        output
    }

    fn int(&self, name: &str, args: &[Value]) -> i64 {
        match self.run(name, args).unwrap().value {
            Value::Int(n) => n,
            other => panic!("{name}: not an Int: {other:?}"),
        }
    }

    fn refused(&self, name: &str, args: &[Value]) -> &'static str {
        match self.run(name, args) {
            Err(error) => error.code,
            Ok(output) => panic!("{name}{args:?} was not refused: {:?}", output.value),
        }
    }
}

fn ids(ids: impl IntoIterator<Item = i64>) -> Value {
    Value::List(ids.into_iter().map(Value::Int).collect())
}

fn each_backend(check: impl Fn(Db)) {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        check(Db::open(backend, &dir.path().join("db")));
    }
}

#[test]
fn deleting_one_row_listed_a_hundred_times_keeps_the_bound_for_a_hundred_rounds() {
    each_backend(|db| {
        let mut next = 0;
        for round in 0..100 {
            let count = db.int("group", &[1.into()]);
            assert!(count <= 100, "round {round}: the group holds {count} rows");
            // A full hundred fits only into an empty group.
            let hundred = ids(next..next + 100);
            if count == 0 {
                assert_eq!(db.int("add_items", &[1.into(), hundred]), 100);
                next += 100;
            } else {
                assert_eq!(db.refused("add_items", &[1.into(), hundred]), "E0504");
            }
            // The free places, exactly, fit: the counter is the row count.
            let free = 100 - db.int("group", &[1.into()]);
            assert_eq!(
                db.int("add_items", &[1.into(), ids(next..next + free)]),
                free
            );
            next += free;
            assert_eq!(db.refused("add_items", &[1.into(), ids([next])]), "E0504");
            // One row, listed a hundred times, is deleted once.
            let Value::Record(first) = db.run("first_of", &[1.into()]).unwrap().value else {
                panic!("the group is full")
            };
            let id = match first.iter().find(|(name, _)| *name == "id") {
                Some((_, Value::Int(id))) => *id,
                other => panic!("no id: {other:?}"),
            };
            let listed = [ids(std::iter::repeat_n(id, 100))];
            assert_eq!(db.int("drop_items", &listed), 1);
            assert_eq!(db.int("group", &[1.into()]), 99);
            assert_eq!(db.int("drop_items", &listed), 0, "already gone");
        }
    });
}

#[test]
fn duplicate_deletes_shrink_a_small_table_once() {
    each_backend(|db| {
        for id in 1..=3 {
            db.run("add_slot", &[id.into()]).unwrap();
        }
        assert_eq!(db.int("drop_slots", &[ids([1, 1, 1, 2, 2])]), 2);
        assert_eq!(db.int("slots", &[]), 1);
        db.run("add_slot", &[4.into()]).unwrap();
        db.run("add_slot", &[5.into()]).unwrap();
        assert_eq!(db.refused("add_slot", &[6.into()]), "E0505");
        assert_eq!(db.int("slots", &[]), 3);
    });
}

#[test]
fn a_referencing_row_listed_twice_releases_its_reference_once() {
    each_backend(|db| {
        db.run("add_owner", &[1.into()]).unwrap();
        db.run("add_pet", &[1.into(), 1.into(), "rex".into()])
            .unwrap();
        db.run("add_pet", &[2.into(), 1.into(), "tom".into()])
            .unwrap();
        // A referenced row listed twice is refused, whole.
        assert_eq!(db.refused("drop_owners", &[ids([1, 1])]), "E0506");
        // Pet 1 listed twice: the owner's counter drops by one, so the
        // owner, still referenced by pet 2, cannot go.
        assert_eq!(db.int("drop_pets", &[ids([1, 1])]), 1);
        assert_eq!(db.refused("drop_owners", &[ids([1])]), "E0506");
        assert_eq!(db.int("drop_pets", &[ids([2, 2, 1])]), 1);
        assert_eq!(db.int("drop_owners", &[ids([1, 1])]), 1);
    });
}

#[test]
fn a_second_update_sees_the_first_ones_result() {
    each_backend(|db| {
        for owner in 1..=3 {
            db.run("add_owner", &[owner.into()]).unwrap();
        }
        db.run("add_pet", &[1.into(), 1.into(), "rex".into()])
            .unwrap();
        assert_eq!(
            db.int("rename_then_move", &[1.into(), "max".into(), 2.into()]),
            1
        );
        let pet = db.run("pet", &[1.into()]).unwrap().value;
        assert_eq!(pet.field("name"), Some(&Value::from("max")), "{pet}");
        assert_eq!(pet.field("owner"), Some(&Value::Int(2)), "{pet}");
        // The reference moves 2 → 3 → 1: owners 2 and 3 are free again.
        assert_eq!(db.int("move_twice", &[1.into(), 3.into(), 1.into()]), 1);
        assert_eq!(db.int("drop_owners", &[ids([2, 3])]), 2);
        assert_eq!(db.refused("drop_owners", &[ids([1])]), "E0506");
        // One row listed three times is renamed once, and renaming it to
        // the name it has changes and writes nothing.
        let renamed = db
            .run("rename_pets", &[ids([1, 1, 1]), "ace".into()])
            .unwrap();
        assert_eq!((renamed.value, renamed.written), (Value::Int(1), 1));
        let same = db.run("rename_pets", &[ids([1, 1]), "ace".into()]).unwrap();
        assert_eq!((same.value, same.written), (Value::Int(0), 0));
        assert_eq!(db.run("pets_of", &[1.into()]).unwrap().rows().len(), 1);
    });
}

#[test]
fn writes_to_a_row_already_gone_do_nothing() {
    each_backend(|db| {
        db.run("add_owner", &[1.into()]).unwrap();
        db.run("add_pet", &[1.into(), 1.into(), "rex".into()])
            .unwrap();
        db.run("add_pet", &[2.into(), 1.into(), "tom".into()])
            .unwrap();
        // The update's value is its own count: the row it names is gone.
        assert_eq!(db.int("drop_then_rename", &[1.into(), "max".into()]), 0);
        assert_eq!(db.run("pet", &[1.into()]).unwrap().value, Value::Null);
        assert_eq!(db.int("drop_twice", &[2.into()]), 0);
        assert_eq!(db.run("pets_of", &[1.into()]).unwrap().rows().len(), 0);
        assert_eq!(db.int("rename_pets", &[ids([1, 2]), "x".into()]), 0);
        assert_eq!(db.int("drop_owners", &[ids([1])]), 1);
    });
}
