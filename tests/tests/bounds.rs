//! The bound property: for every accepted program, for all arguments and every database state reachable by accepted mutations, a run's actual seeks, rows and round trips are at most the printed bound — and its answer is the reference evaluator's. Generated mutations (updates computed from the row, `+=`/`-=` at the extremes, upserts over new and existing keys, nested) are held to it too, leave the tables the reference leaves, and every counter, reference and aggregate right after each.
//!
//! Programs come from `rqc_tests::programs` (every construct in every
//! position its type allows); data from random accepted mutations, with
//! groups of the large table far larger than any bound; arguments include
//! negative and extreme values. A run may fail only as data can make it
//! fail (an overflow, a division by zero); an internal error or a read past
//! a bound (E0594, E0598, E0599, E0546 for round trips) is a failure of the
//! property, in the loading mutations too.
//!
//! `RQC_BOUNDS_CASES` sets the number of programs (default 60 in the normal
//! suite; the README reports the long run), `RQC_BOUNDS_SEED` the first seed.

use rqc_compiler::compile;
use rqc_plan::{EntryKind, Value};
use rqc_runtime::Engine;
use rqc_tests::programs::{program, EXTREMES};
use rqc_tests::reference::Reference;
use rqc_tests::state::{check_integrity, reference_tables, store_tables};
use rqc_tests::Rng;

/// Codes a run may end with on some data: arithmetic the data makes fail.
const DATA_ERRORS: [&str; 3] = ["E0530", "E0531", "E0538"];

/// Codes a write may be refused with besides: a constraint the data
/// breaks (a taken key or unique value, a missing reference, a full group
/// or small table, a referenced row, an aggregate's sum past 64 bits, a
/// generated key past the largest `Int`).
const REFUSALS: [&str; 8] = [
    "E0501", "E0502", "E0503", "E0504", "E0505", "E0506", "E0526", "E0660",
];

struct Tally {
    programs: usize,
    accepted: usize,
    runs: usize,
    near_bound: usize,
    /// Runs that made fewer round trips than seeks: a batch was read.
    batched: usize,
    /// Accepted queries that read a tuple range (`(v, id) < (…)`).
    tuple_ranges: usize,
    /// Accepted queries reading a range from its other end.
    reverse_reads: usize,
    /// Runs of accepted queries holding a predicate over an index (`in`,
    /// `starts_with`, a union `||`).
    predicates: usize,
    /// Runs of accepted queries reading a group of `F` by a float key.
    float_groups: usize,
    /// Accepted queries whose counts only the rules over value ranges
    /// bound: narrowed by an `if`, a remainder, the least or greatest of a
    /// list, a string's length, a function's declared ends, a function a
    /// function returns.
    ranged: usize,
    /// Accepted queries narrowing a name through a side that is a sum of
    /// names and literals (`if (n - 3) > …`), a `let` bound to one, or a
    /// string's length.
    shifted: usize,
    /// Accepted queries applying a returned function whose reads grow
    /// with its own argument (`reads_by(g)(k)`).
    argument_costed: usize,
    /// Accepted queries taking the least or greatest of a list whose
    /// value went through a `let`, a field, an `if` or a function's list
    /// parameter (the extremes its type carries).
    extremes: usize,
    /// Accepted queries calling a function whose measures join as their
    /// greatest, functions fed one `T`, a producer of `T`, or a returned
    /// lambda's least of its own argument and another.
    joined: usize,
    /// Accepted generated mutations, their runs, and the runs committed.
    mutations: usize,
    mutation_runs: usize,
    committed: usize,
    /// Committed mutation runs whose delete cascaded: `Z` rows went with
    /// their `Q` row, or `R` rows came to hold `none`.
    cascaded: usize,
    /// Transactions of several generated mutations, and those committed.
    transactions: usize,
    transactions_committed: usize,
}

fn cases() -> u64 {
    std::env::var("RQC_BOUNDS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

fn first_seed() -> u64 {
    std::env::var("RQC_BOUNDS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

/// Loads a database both sides see: a big group in `A` (so any unlimited
/// read would show), an island `B`, values in `C` (some extreme), `S`.
fn load(engine: &Engine, reference: &mut Reference<'_>, rng: &mut Rng) {
    let mut run = |name: &str, args: Vec<Value>| match engine.run(name, &args) {
        Ok(_) => {
            reference.run(name, &args);
        }
        // Refused by the data (a duplicate key, a full island): fine.
        Err(error) => assert!(
            !["E0594", "E0598", "E0599", "E0546"].contains(&error.code),
            "{name}{args:?} failed: {error}"
        ),
    };
    let big_group = 40 + rng.below(40);
    for id in 1..=big_group {
        run("add_a", vec![id.into(), 1.into(), rng.below(9).into()]);
    }
    for id in 100..100 + rng.below(30) {
        run(
            "add_a",
            vec![id.into(), rng.below(4).into(), rng.below(9).into()],
        );
    }
    for _ in 0..rng.below(24) {
        let a = rng.below(4) - 1;
        run(
            "add_b",
            vec![a.into(), rng.below(6).into(), rng.below(7).into()],
        );
    }
    // Cascades at their bounds: `P` rows with up to 3 `Q` rows each (the
    // bound), up to 2 `Z` rows per `Q` row and 2 `R` rows per `P` row;
    // more are drawn than fit, and refused (E0504).
    for id in -1..4 {
        run("add_p", vec![id.into()]);
    }
    for id in 0..rng.below(18) {
        run("add_q", vec![id.into(), (rng.below(5) - 1).into()]);
    }
    for _ in 0..rng.below(30) {
        run("add_z", vec![rng.below(18).into(), rng.below(3).into()]);
    }
    for id in 0..rng.below(12) {
        run("add_r", vec![id.into(), (rng.below(5) - 1).into()]);
    }
    for id in -1..4 {
        let lim = EXTREMES[rng.below(EXTREMES.len() as u64) as usize];
        run("add_c", vec![id.into(), lim.into()]);
    }
    for id in 0..rng.below(7) {
        run("add_s", vec![id.into(), (rng.below(9) - 2).into()]);
    }
    // Strings that begin alike, with `\0` and multi-byte characters; the
    // last ones are longer than `W.s <= 4` and refused (E0576).
    let words = [
        "", "a", "ab", "a\0", "a\0b", "a\u{1}", "b", "é", "éa", "ééé", "abcde",
    ];
    for word in words {
        if rng.below(3) > 0 {
            run("add_w", vec![Value::Str(word.into()), rng.below(3).into()]);
        }
    }
    // Groups of `F` written through both zeros and the extremes: moved
    // by `-x` and `x * -1.0`, which an older rqc let outgrow their bound.
    // A whole float is given to rqc as an `Int` (`1` for `1.0`) now and then.
    let floats = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, f64::MIN, f64::MAX];
    for id in 0..rng.below(14) {
        let x = floats[rng.below(floats.len() as u64) as usize];
        let name = ["add_f", "add_f", "neg_f", "scale_f"][rng.below(4) as usize];
        let given = if x.fract() == 0.0
            && x.abs() < 2.0
            && rng.below(2) == 0
            && !(x == 0.0 && x.is_sign_negative())
        {
            Value::Int(x as i64)
        } else {
            Value::Float(x)
        };
        let id = Value::Int(if name == "add_f" {
            id
        } else {
            rng.below(id.max(1) as u64)
        });
        match engine.run(name, &[id.clone(), given]) {
            Ok(_) => {
                reference.run(name, &[id, Value::Float(x)]);
            }
            Err(error) => assert!(
                ["E0501", "E0504"].contains(&error.code),
                "{name}({id:?}, {x:?}) failed: {error}"
            ),
        }
    }
}

fn arguments(rng: &mut Rng) -> Vec<Value> {
    let mut draw = |max: i64| {
        let value = EXTREMES[rng.below(EXTREMES.len() as u64) as usize];
        Value::Int(if value > max {
            rng.below(max as u64 + 1)
        } else {
            value
        })
    };
    // `p: Int >= -2 <= 4`: within its ends (outside, the run is refused
    // before it starts, E0522).
    let drawn = vec![draw(i64::MAX), draw(6), draw(3)];
    let p = Value::Int(rng.below(7) - 2);
    drawn.into_iter().chain([p]).collect()
}

/// Names the seed and its program when a check panics without them (the
/// reference evaluator's own assertions), so the case can be run again.
struct NamedOnPanic<'a>(u64, &'a str);

impl Drop for NamedOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("seed {}:\n{}", self.0, self.1);
        }
    }
}

fn check_program(seed: u64, tally: &mut Tally) {
    let mut rng = Rng::new(seed);
    let source = program(&mut rng, 4);
    let _named = NamedOnPanic(seed, &source);
    let compilation = compile(&[("gen.rq".to_string(), source.clone())]);
    tally.programs += 1;
    let engine = {
        let mut engine = Engine::in_memory();
        // Every plan the compiler writes passes the plan verifier.
        if let Err(error) = engine.install(compilation.program.clone()) {
            panic!("seed {seed}: [{}] {}\n{source}", error.code, error.message);
        }
        engine
    };
    let mut reference = Reference::new(&compilation.checked);
    load(&engine, &mut reference, &mut rng);
    run_writes(
        seed,
        &source,
        &compilation,
        &engine,
        &mut reference,
        &mut rng,
        tally,
    );
    for entry in &compilation.program.entries {
        if entry.kind != EntryKind::Query {
            continue;
        }
        tally.accepted += 1;
        let mut tuple = false;
        entry
            .root
            .walk(&mut |node| tuple |= matches!(node.op, rqc_plan::Op::Tuple(_)));
        tally.tuple_ranges += usize::from(tuple);
        let mut backwards = false;
        entry.root.walk(&mut |node| {
            backwards |= matches!(
                node.op,
                rqc_plan::Op::Combinator(
                    rqc_plan::Combinator::Reverse | rqc_plan::Combinator::SortBy { .. },
                    rqc_plan::Shape::Stream,
                    _
                )
            )
        });
        tally.reverse_reads += usize::from(backwards);
        let text = source
            .lines()
            .find(|l| l.starts_with(&format!("query {}(", entry.name)))
            .unwrap_or_default();
        let predicate = [" in ", "starts_with", "||"]
            .iter()
            .any(|p| text.contains(p));
        let float_group = text.contains("F.by_x[") || text.contains("f_count[");
        tally.ranged += usize::from(
            [
                "if x ",
                "if n ",
                "if m ",
                "if p ",
                "if r.v ",
                "if c.lim ",
                "let c =",
                "%",
                "min()",
                "max()",
                "length(w.s",
                "clamp(",
                "reads(",
                "either_len(",
                "both(",
                "produced(",
                "least_by(",
                "either(",
                "pass_fn(",
                "let o: Int? =",
                "filter(r => r.t ",
            ]
            .iter()
            .any(|form| text.contains(form)),
        );
        tally.shifted += usize::from(
            [
                "if (",
                "if length(w.s) ",
                "if t |> length()",
                "let d = ",
                "let f = z =>",
                ") { (",
                "& (A.by_g[x] |> take(",
                "| (A.by_g[x] |> take(",
                "{ y => f(y) }",
                "filter(e => e ",
                " { d } else {",
                "let g = z => if z ",
                "r.t(s.c)",
                "let mk = y =>",
                "filter(e => { let ",
                "if { let q = ",
                "if in_range(",
                "if !in_range(",
                "if near(",
                "diff_reads(x, ",
                "diff_reads_on(x, ",
            ]
            .iter()
            .any(|form| text.contains(form)),
        );
        tally.argument_costed +=
            usize::from(text.contains("reads_by(") || text.contains("skips_by("));
        tally.joined += usize::from(
            ["either_len(", "both(", "produced(", "least_by("]
                .iter()
                .any(|form| text.contains(form)),
        );
        tally.extremes += usize::from(
            [
                "least_of(",
                "most_of(",
                "let l = [",
                "{ l: [",
                "} else { [",
                "rev_of(",
                "own_of(",
            ]
            .iter()
            .any(|form| text.contains(form)),
        );
        for _ in 0..4 {
            tally.predicates += usize::from(predicate);
            tally.float_groups += usize::from(float_group);
            let args = arguments(&mut rng);
            tally.runs += 1;
            match engine.run(&entry.name, &args) {
                Ok(output) => {
                    agrees(seed, &source, entry, &args, &output, &mut reference);
                    if output.stats.rows * 2 > entry.bound.rows {
                        tally.near_bound += 1;
                    }
                    if output.stats.round_trips < output.stats.seeks {
                        tally.batched += 1;
                    }
                }
                Err(error) => assert!(
                    DATA_ERRORS.contains(&error.code),
                    "seed {seed}: {} with {args:?} failed: {error}\n{source}",
                    entry.name
                ),
            }
        }
    }
}

/// A run that succeeded: within its entry's bound, and the reference's
/// answer (the reference then makes the same writes).
fn agrees(
    seed: u64,
    source: &str,
    entry: &rqc_plan::Entry,
    args: &[Value],
    output: &rqc_runtime::Output,
    reference: &mut Reference<'_>,
) {
    assert!(
        rqc_tests::within(&output.stats, &entry.bound),
        "seed {seed}: {} read {:?}, over its bound {:?}, with {args:?}\n{source}",
        entry.name,
        output.stats,
        entry.bound
    );
    let expected = reference.run(&entry.name, args);
    assert_eq!(
        output.value, expected,
        "seed {seed}: {} with {args:?} differs from the reference\n{source}",
        entry.name
    );
}

/// Runs each accepted generated mutation with drawn arguments: within its
/// bound, the reference's value and tables when it commits, nothing
/// written when data refuses it, every index, counter, reference and
/// aggregate equal to the rows after each run.
fn run_writes(
    seed: u64,
    source: &str,
    compilation: &rqc_compiler::Compilation,
    engine: &Engine,
    reference: &mut Reference<'_>,
    rng: &mut Rng,
    tally: &mut Tally,
) {
    let schema = &compilation.program.schema;
    for entry in &compilation.program.entries {
        if entry.kind != EntryKind::Mutation || !entry.name.starts_with('w') {
            continue;
        }
        tally.mutations += 1;
        for _ in 0..4 {
            let args = arguments(rng);
            tally.mutation_runs += 1;
            let before = cascade_marks(reference);
            match engine.run(&entry.name, &args) {
                Ok(output) => {
                    agrees(seed, source, entry, &args, &output, reference);
                    tally.committed += 1;
                    let after = cascade_marks(reference);
                    if after.0 < before.0 || after.1 > before.1 {
                        tally.cascaded += 1;
                    }
                }
                Err(error) => assert!(
                    DATA_ERRORS.contains(&error.code) || REFUSALS.contains(&error.code),
                    "seed {seed}: {} with {args:?} failed: {error}\n{source}",
                    entry.name
                ),
            }
            assert_eq!(
                store_tables(engine.store(), schema),
                reference_tables(reference, schema),
                "seed {seed}: the tables after {} with {args:?}\n{source}",
                entry.name
            );
            assert_eq!(
                check_integrity(engine.store(), schema),
                Ok(()),
                "seed {seed}: after {} with {args:?}\n{source}",
                entry.name
            );
        }
    }
    let writes: Vec<&rqc_plan::Entry> = compilation
        .program
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Mutation && e.name.starts_with('w'))
        .map(|e| &**e)
        .collect();
    if !writes.is_empty() {
        for _ in 0..3 {
            let calls: Vec<(&rqc_plan::Entry, Vec<Value>)> = (0..1 + rng.below(4))
                .map(|_| {
                    (
                        writes[rng.below(writes.len() as u64) as usize],
                        arguments(rng),
                    )
                })
                .collect();
            run_transaction(seed, source, schema, engine, reference, &calls, tally);
        }
    }
}

/// The `Z` rows, and the `R` rows holding `none`: a cascade lowers the
/// first or raises the second (nothing else deletes a `Z` row or writes
/// `none` into `R.p`).
fn cascade_marks(reference: &Reference<'_>) -> (usize, usize) {
    let rows = |t: &str| reference.tables.get(t).map(Vec::as_slice).unwrap_or(&[]);
    let nones = rows("R")
        .iter()
        .filter(|r| r.field("p") == Some(&Value::Null))
        .count();
    (rows("Z").len(), nones)
}

/// Runs generated mutations as one transaction: each call within its own
/// bound (its commit counted as its own), the whole within the calls'
/// bounds summed with one commit; committed, the reference makes the same
/// calls with the same values; refused, nothing is written.
fn run_transaction(
    seed: u64,
    source: &str,
    schema: &rqc_plan::Schema,
    engine: &Engine,
    reference: &mut Reference<'_>,
    calls: &[(&rqc_plan::Entry, Vec<Value>)],
    tally: &mut Tally,
) {
    let names: Vec<(&str, &[Value])> = calls.iter().map(|(e, a)| (&*e.name, &a[..])).collect();
    tally.transactions += 1;
    let before = store_tables(engine.store(), schema);
    let outcome = engine.transaction(|tx| {
        let outputs = calls
            .iter()
            .map(|(entry, args)| tx.run_entry(entry, args))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((outputs, tx.bound()))
    });
    match outcome {
        Ok((outputs, bound)) => {
            for ((entry, args), output) in calls.iter().zip(&outputs) {
                let alone = rqc_runtime::Stats {
                    round_trips: output.stats.round_trips + rqc_plan::COMMIT_ROUND_TRIPS,
                    ..output.stats
                };
                assert!(
                    rqc_tests::within(&alone, &entry.bound),
                    "seed {seed}: {} in {names:?} read {alone:?}, over its bound {:?}\n{source}",
                    entry.name,
                    entry.bound
                );
                let expected = reference.run(&entry.name, args);
                assert_eq!(
                    output.value, expected,
                    "seed {seed}: {} in {names:?} differs from the reference\n{source}",
                    entry.name
                );
            }
            let trips: u64 = outputs.iter().map(|o| o.stats.round_trips).sum();
            assert!(
                trips + rqc_plan::COMMIT_ROUND_TRIPS <= bound.round_trips,
                "seed {seed}: {names:?} made {trips} round trips and a commit, over {bound:?}\n{source}"
            );
            tally.transactions_committed += 1;
        }
        Err(error) => {
            assert!(
                DATA_ERRORS.contains(&error.code) || REFUSALS.contains(&error.code),
                "seed {seed}: {names:?} failed: {error}\n{source}"
            );
            assert_eq!(
                before,
                store_tables(engine.store(), schema),
                "seed {seed}: {names:?}"
            );
        }
    }
    assert_eq!(
        store_tables(engine.store(), schema),
        reference_tables(reference, schema),
        "seed {seed}: the tables after {names:?}\n{source}"
    );
    assert_eq!(
        check_integrity(engine.store(), schema),
        Ok(()),
        "seed {seed}: after {names:?}\n{source}"
    );
}

#[test]
fn accepted_programs_stay_within_their_bounds_and_agree_with_the_reference() {
    // `now()` in generated writes: one clock for the runtime and the
    // reference evaluator.
    std::env::set_var("RQC_NOW", "1700000000000000");
    let mut tally = Tally {
        programs: 0,
        accepted: 0,
        runs: 0,
        near_bound: 0,
        batched: 0,
        tuple_ranges: 0,
        reverse_reads: 0,
        predicates: 0,
        float_groups: 0,
        ranged: 0,
        argument_costed: 0,
        shifted: 0,
        extremes: 0,
        joined: 0,
        mutations: 0,
        mutation_runs: 0,
        committed: 0,
        cascaded: 0,
        transactions: 0,
        transactions_committed: 0,
    };
    let first = first_seed();
    for seed in first..first + cases() {
        check_program(seed, &mut tally);
    }
    eprintln!(
        "bound property: {} programs, {} accepted queries ({} reading a tuple range, {} a range backwards, {} bounded by value ranges, {} through a side that is a sum or a length, {} applying a function whose reads grow with its argument, {} the least or greatest of a list passed on, {} joined measures, fed or produced `T`s, or a returned lambda's least), {} runs ({} reading over half their bound, {} with batched lookups, {} with predicates over indexes, {} reading a group by a float key); {} accepted mutations, {} runs, {} committed, {} cascading; {} transactions, {} committed",
        tally.programs, tally.accepted, tally.tuple_ranges, tally.reverse_reads, tally.ranged, tally.shifted, tally.argument_costed, tally.extremes, tally.joined, tally.runs, tally.near_bound, tally.batched, tally.predicates, tally.float_groups, tally.mutations, tally.mutation_runs, tally.committed, tally.cascaded, tally.transactions, tally.transactions_committed
    );
    assert!(
        tally.committed > 0 && tally.committed < tally.mutation_runs,
        "the generated mutations all committed or none did: {} of {}",
        tally.committed,
        tally.mutation_runs
    );
    assert!(
        tally.transactions_committed > 0,
        "no transaction of generated mutations committed ({} run)",
        tally.transactions
    );
    // The generator must keep producing accepted programs that read a lot.
    assert!(
        tally.accepted * 4 >= tally.programs,
        "too few accepted: {}",
        tally.accepted
    );
    assert!(tally.near_bound > 0, "no run came near its bound");
    assert!(
        tally.reverse_reads > 0,
        "no accepted query read a range backwards"
    );
    assert!(tally.batched > 0, "no run read a batch of lookups");
    assert!(
        tally.predicates > 0,
        "no run held a predicate over an index"
    );
    assert!(
        tally.tuple_ranges > 0,
        "no accepted query read a tuple range"
    );
    assert!(tally.float_groups > 0, "no run read a group by a float key");
    assert!(
        tally.cascaded > 0,
        "no committed delete cascaded through an island"
    );
    assert!(
        tally.ranged > 0,
        "no accepted query held a count bounded by value ranges"
    );
    assert!(
        tally.joined > 0,
        "no accepted query joined measures, fed or produced a `T`, or took a returned lambda's least"
    );
    assert!(
        tally.extremes > 0,
        "no accepted query took the least or greatest of a list passed on"
    );
    assert!(
        tally.shifted > 0,
        "no accepted query narrowed a name through a side that is a sum or a length"
    );
    assert!(
        tally.argument_costed > 0,
        "no accepted query applied a function whose reads grow with its argument"
    );
}
