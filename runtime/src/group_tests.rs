//! Tests of group commit: waiting mutations share a commit, a failure gives the group up, a panic stays in its caller.

use super::*;
use crate::store::{MemoryStore, Tree};
use rqc_plan::Value;
use std::time::{Duration, Instant};

fn output(n: i64) -> Output {
    Output::wrote_one(Value::Int(n))
}

/// A mutation that first waits until `queued` others are queued.
struct Call {
    queued: usize,
    work: Closure<'static>,
}

fn call(
    queued: usize,
    work: impl FnMut(Box<dyn WriteTxn + '_>) -> Result<Output> + Send + 'static,
) -> Call {
    Call {
        queued,
        work: Box::new(work),
    }
}

/// Runs a [`Call`]: waits, then calls its closure.
struct Waits<'g>(&'g Group<Call>);

impl Runs<Call> for Waits<'_> {
    fn run(&self, call: &mut Call, txn: Box<dyn WriteTxn + '_>) -> Result<Output> {
        until_queued(self.0, call.queued);
        (call.work)(txn)
    }
}

fn queued(group: &Group<Call>) -> usize {
    group.lock().queue.len()
}

/// Waits until a leader has taken its first mutation.
fn until_leading(group: &Group<Call>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !{
        let state = group.lock();
        state.leading && state.queue.is_empty() && !state.taken.is_empty()
    } {
        assert!(Instant::now() < deadline, "no leader");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits until `n` mutations are queued behind the running one.
fn until_queued(group: &Group<Call>, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while queued(group) < n {
        assert!(Instant::now() < deadline, "the other threads never queued");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Thread 0 leads and, while it runs, threads 1..=3 queue: they join
/// its transaction, each seeing the writes before it. Thread 2 fails
/// after writing: nothing of it is stored, the others are.
#[test]
fn waiting_mutations_share_a_commit_and_a_failure_stores_nothing() {
    let store = MemoryStore::new();
    let tree: Tree = store.tree("t");
    let group: Group<Call> = Group::default();
    let (group, store) = (&group, &store);
    let results: Vec<Result<Output>> = std::thread::scope(|s| {
        let first = s.spawn(move || {
            let work = call(3, move |mut txn: Box<dyn WriteTxn + '_>| {
                txn.put(tree, b"0", b"zero")?;
                txn.commit()?;
                Ok(output(0))
            });
            group.run(store, &Waits(group), work)
        });
        until_leading(group);
        let later: Vec<_> = (1..=3)
            .map(|i: i64| {
                s.spawn(move || {
                    // One at a time, so that they queue in order.
                    until_queued(group, i as usize - 1);
                    let work = call(0, move |mut txn: Box<dyn WriteTxn + '_>| {
                        // Each sees the writes of those before it.
                        let before = txn.range(tree, b"", None, false, 10)?;
                        let key = i.to_string();
                        txn.put(tree, key.as_bytes(), b"x")?;
                        if i == 2 {
                            return Err(RuntimeError::new("E0502", "refused", "test"));
                        }
                        txn.commit()?;
                        Ok(output(before.len() as i64))
                    });
                    group.run(store, &Waits(group), work)
                })
            })
            .collect();
        std::iter::once(first)
            .chain(later)
            .map(|t| t.join().unwrap())
            .collect()
    });
    let values: Vec<_> = results
        .iter()
        .map(|r| r.as_ref().map(|o| o.value.clone()).map_err(|e| e.code))
        .collect();
    assert_eq!(
        values,
        [
            Ok(Value::Int(0)),
            Ok(Value::Int(1)),
            Err("E0502"),
            Ok(Value::Int(2)),
        ]
    );
    let read = store.begin_read().unwrap();
    let keys: Vec<Vec<u8>> = read
        .range(tree, b"", None, false, 10)
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, [b"0".to_vec(), b"1".to_vec(), b"3".to_vec()]);
}

/// After a group of two, the next group waits for a second mutation
/// that queues once its first has run: both run on the leader's
/// thread, in one commit. After a group of one, it does not wait: the
/// latecomer leads a group of its own, on its own thread.
#[test]
fn a_group_waits_for_as_many_as_the_last_one_held() {
    use std::sync::mpsc;
    for (held, joins) in [(2, true), (1, false)] {
        let store = MemoryStore::new();
        let tree = store.tree("t");
        let group: Group<Call> = Group {
            longest: Duration::from_secs(30),
            ..Group::default()
        };
        group.lock().last = Gathering {
            held,
            commit: Duration::from_secs(60),
        };
        let (group, store) = (&group, &store);
        let (ran, later) = mpsc::channel::<()>();
        let threads = std::thread::scope(|s| {
            let first = s.spawn(move || {
                let work = call(0, move |mut txn: Box<dyn WriteTxn + '_>| {
                    txn.put(tree, b"a", b"")?;
                    txn.commit()?;
                    ran.send(()).unwrap();
                    Ok(output(0))
                });
                group.run(store, &Waits(group), work).unwrap();
                std::thread::current().id()
            });
            let second = s.spawn(move || {
                later.recv().unwrap();
                // Well after the leader found the queue empty.
                std::thread::sleep(Duration::from_millis(200));
                let on = std::sync::Arc::new(Mutex::new(None));
                let seen = std::sync::Arc::clone(&on);
                let work = call(0, move |mut txn: Box<dyn WriteTxn + '_>| {
                    *seen.lock().unwrap() = Some(std::thread::current().id());
                    txn.put(tree, b"b", b"")?;
                    txn.commit()?;
                    Ok(output(1))
                });
                group.run(store, &Waits(group), work).unwrap();
                let ran_on = on.lock().unwrap().take().unwrap();
                (std::thread::current().id(), ran_on)
            });
            (first.join().unwrap(), second.join().unwrap())
        });
        let (leader, (second, second_ran_on)) = threads;
        if joins {
            assert_eq!(second_ran_on, leader, "the second joined the first's group");
        } else {
            assert_eq!(second_ran_on, second, "the second led a group of its own");
        }
        let read = store.begin_read().unwrap();
        assert_eq!(read.range(tree, b"", None, false, 10).unwrap().len(), 2);
    }
}

/// A mutation that fails after its writes went into the transaction
/// gives the group up: nothing is stored, and the mutation that had
/// run before it is told to run again (a conflict).
#[test]
fn a_failure_inside_the_shared_transaction_gives_the_group_up() {
    let store = MemoryStore::new();
    let tree = store.tree("t");
    let group: Group<Call> = Group::default();
    let (group, store) = (&group, &store);
    let (first, second, third) = std::thread::scope(|s| {
        let first = s.spawn(move || {
            let work = call(2, move |mut txn: Box<dyn WriteTxn + '_>| {
                txn.put(tree, b"a", b"1")?;
                txn.commit()?;
                Ok(output(1))
            });
            group.run(store, &Waits(group), work)
        });
        until_leading(group);
        let second = s.spawn(move || {
            let work = call(0, move |mut txn: Box<dyn WriteTxn + '_>| {
                txn.put(tree, b"b", b"2")?;
                txn.commit()?;
                Ok(output(2))
            });
            group.run(store, &Waits(group), work)
        });
        until_queued(group, 1);
        let third = s.spawn(move || {
            let work = call(0, move |mut txn: Box<dyn WriteTxn + '_>| {
                txn.put(tree, b"c", b"3")?;
                txn.commit()?;
                Err(RuntimeError::new(
                    "E0544",
                    "refused after its writes",
                    "test",
                ))
            });
            group.run(store, &Waits(group), work)
        });
        (
            first.join().unwrap(),
            second.join().unwrap(),
            third.join().unwrap(),
        )
    });
    assert!(first.unwrap_err().is_conflict());
    assert!(second.unwrap_err().is_conflict());
    assert_eq!(third.unwrap_err().code, "E0544");
    let read = store.begin_read().unwrap();
    assert!(read.range(tree, b"", None, false, 10).unwrap().is_empty());
}

/// A mutation that panics on the leader's thread panics in its own
/// caller's, and the group's other mutations still commit.
#[test]
fn a_panicking_mutation_panics_in_its_caller_and_the_others_commit() {
    let store = MemoryStore::new();
    let tree = store.tree("t");
    let group: Group<Call> = Group::default();
    let (group, store) = (&group, &store);
    let (first, second) = std::thread::scope(|s| {
        let first = s.spawn(move || {
            let work = call(1, move |mut txn: Box<dyn WriteTxn + '_>| {
                txn.put(tree, b"a", b"1")?;
                txn.commit()?;
                Ok(output(1))
            });
            group.run(store, &Waits(group), work)
        });
        until_leading(group);
        let second = s.spawn(move || {
            let work = call(0, move |_txn: Box<dyn WriteTxn + '_>| -> Result<Output> {
                panic!("a bug in a mutation")
            });
            group.run(store, &Waits(group), work)
        });
        (first.join(), second.join())
    });
    assert_eq!(first.unwrap().unwrap().value, Value::Int(1));
    assert!(second.is_err(), "the panic reaches its caller");
    let read = store.begin_read().unwrap();
    assert_eq!(read.get(tree, b"a").unwrap(), Some(b"1".to_vec()));
}
