//! Several mutations in one transaction (`Engine::transaction`), on every backend: they see each other's writes, commit together, and a failure anywhere leaves nothing.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::state::check_integrity;

const PROGRAM: &str = "
table Account { id: Int key  balance: Int }
mutation open(id: Int, balance: Int) = insert Account { id, balance }
mutation set(id: Int, balance: Int) = update Account[id] { balance: balance }
query balance(id: Int) = Account[id] |> map(a => a.balance)
";

fn each_backend(check: impl Fn(&Engine)) {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let compilation = compile(&[("bank.rq".into(), PROGRAM.into())]);
        assert!(compilation.diagnostics.is_empty());
        let options = OpenOptions {
            backend: Some(backend),
            durability: Durability::Full,
            ..OpenOptions::default()
        };
        let mut engine = Engine::open(&dir.path().join("db"), options).unwrap();
        engine.install(compilation.program.clone()).unwrap();
        check(&engine);
        assert_eq!(
            check_integrity(engine.store(), &compilation.program.schema),
            Ok(())
        );
    }
}

fn balance(engine: &Engine, id: i64) -> Value {
    engine.run("balance", &[id.into()]).unwrap().value
}

#[test]
fn runs_of_one_transaction_see_each_other_and_commit_together() {
    each_backend(|engine| {
        let seen = engine
            .transaction(|tx| {
                tx.run("open", &[1.into(), 100.into()])?;
                tx.run("open", &[2.into(), 0.into()])?;
                tx.run("set", &[1.into(), 60.into()])?;
                tx.run("set", &[2.into(), 40.into()])?;
                // A query inside sees the transaction's writes.
                Ok(tx.run("balance", &[2.into()])?.value)
            })
            .unwrap();
        assert_eq!(seen, Value::Int(40));
        assert_eq!(balance(engine, 1), Value::Int(60));
        assert_eq!(balance(engine, 2), Value::Int(40));
    });
}

#[test]
fn a_failed_run_leaves_nothing_of_the_transaction() {
    each_backend(|engine| {
        engine.run("open", &[1.into(), 5.into()]).unwrap();
        let refused = engine.transaction(|tx| {
            tx.run("set", &[1.into(), 7.into()])?;
            tx.run("open", &[2.into(), 1.into()])?;
            // Key 1 exists: refused, and with it the whole transaction.
            tx.run("open", &[1.into(), 9.into()])?;
            Ok(())
        });
        assert_eq!(refused.unwrap_err().code, "E0501");
        assert_eq!(balance(engine, 1), Value::Int(5));
        assert_eq!(balance(engine, 2), Value::Null);
    });
}

#[test]
fn a_transaction_whose_body_ignores_a_failure_cannot_commit() {
    each_backend(|engine| {
        engine.run("open", &[1.into(), 5.into()]).unwrap();
        let outcome = engine.transaction(|tx| {
            tx.run("set", &[1.into(), 7.into()])?;
            let _ignored = tx.run("open", &[1.into(), 9.into()]);
            Ok(())
        });
        assert_eq!(outcome.unwrap_err().code, "E0597");
        assert_eq!(balance(engine, 1), Value::Int(5));
    });
}

/// A query's read transaction may be kept between runs (LMDB keeps one per
/// thread): it never hides a commit. Each run sees every commit made
/// before it began, on another thread or on its own, and a query after an
/// idle spell (its kept transaction ended by the reaper) too.
#[test]
fn a_run_sees_every_commit_made_before_it_on_any_thread() {
    each_backend(|engine| {
        engine.run("open", &[1.into(), 0.into()]).unwrap();
        std::thread::scope(|scope| {
            let (to_writer, writes) = std::sync::mpsc::channel::<i64>();
            let (to_reader, written) = std::sync::mpsc::channel::<i64>();
            scope.spawn(move || {
                for n in writes {
                    engine.run("set", &[1.into(), n.into()]).unwrap();
                    to_reader.send(n).unwrap();
                }
            });
            for n in 1..=60i64 {
                // The read before kept this thread's transaction.
                assert_eq!(balance(engine, 1), Value::Int(n - 1));
                to_writer.send(n).unwrap();
                assert_eq!(written.recv().unwrap(), n);
                assert_eq!(balance(engine, 1), Value::Int(n), "after commit {n}");
                if n % 20 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
            drop(to_writer);
        });
        // And this thread's own commits.
        for n in 61..=80i64 {
            engine.run("set", &[1.into(), n.into()]).unwrap();
            assert_eq!(balance(engine, 1), Value::Int(n));
        }
    });
}
