//! Running an entry point of an embedded database in a test: its answer, the run held within its printed bound.

use rqc::{Database, Output, Value};

/// Runs `name` with `args`, panicking with the error if it fails, and
/// asserts that what it read is within the bound it printed.
pub fn run_within_bound(db: &Database, name: &str, args: &[Value]) -> Output {
    let out = db.run(name, args).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (s, b) = (&out.stats, &out.bound);
    assert!(
        s.seeks <= b.seeks && s.rows <= b.rows && s.round_trips <= b.round_trips,
        "{name}: read {s:?}, bound {b:?}"
    );
    out
}
