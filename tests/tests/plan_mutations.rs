//! Mutated plans (issue 33, §3): every field of every operator of a program that uses every kind of operator, and of its schema, parameters and claims, changed, dropped, duplicated, made negative or huge, with NUL in names, positions out of range, duplicated schema entries, wrong-typed defaults, key columns in updates, self-applications.
//!
//! Each mutated program is verified, then, when it is accepted, installed
//! into a stocked database and every entry point run with ordinary and edge
//! arguments. Never a panic, never a hang (each case has a deadline),
//! never a refusal outside the verifier's codes, never an error that says
//! "a bug in rqc" (a bound read past, E0599, E0546, E0594), and after the
//! runs the database verifies, every row fits its column's type, and the
//! honest program, installed again, answers what a recount of the rows
//! says. Sound edits (a lower limit, another constant, a looser claim,
//! the claims at exactly the recomputed bound) must install; a claim one
//! below the recomputed bound must not.
//!
//! CI runs every eighth case; `RQC_PLAN_MUTATIONS=all` runs all of them
//! (the figure in the README), `RQC_PLAN_MUTATIONS=N` every N-th.

#[path = "plan_mutations/nodes.rs"]
mod nodes;
#[path = "plan_mutations/program.rs"]
mod program;
#[path = "plan_mutations/reshape.rs"]
mod reshape;

use program::Mutant;
use rqc::{Database, Value};
use rqc_plan::{CompiledProgram, Node, Op, ParamType};
use std::sync::mpsc;
use std::time::Duration;

const BASE: &str = include_str!("plan_mutations/base.rq");

/// Errors that say "a bug in rqc": none may follow an accepted plan.
const BUGS: [&str; 6] = ["E0594", "E0598", "E0599", "E0546", "E0591", "E0582"];

/// `work` on a thread of its own, within `seconds`: its result, or why
/// not (it panicked, or did not end).
fn within<T: Send + 'static>(
    seconds: u64,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = send.send(result.map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            }));
        })
        .unwrap();
    match receive.recv_timeout(Duration::from_secs(seconds)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(panic)) => Err(format!("panicked: {panic}")),
        Err(_) => Err(format!("did not end within {seconds} s")),
    }
}

/// Every mutant of `base`.
fn mutants(base: &CompiledProgram) -> Vec<Mutant> {
    let recomputed =
        rqc_runtime::verifier::recomputed_bounds(base).expect("the base program passes");
    let mut out = program::schema_edits(base);
    out.extend(program::entry_edits(base, &recomputed));
    let tables: Vec<String> = base.schema.tables.iter().map(|t| t.name.clone()).collect();
    let indexes: Vec<String> = base
        .schema
        .tables
        .iter()
        .flat_map(|t| t.indexes.iter().map(|i| i.name.clone()))
        .collect();
    for (e, entry) in base.entries.iter().enumerate() {
        let mut operators = Vec::new();
        gather(&entry.root, nodes::Place::default(), &mut operators);
        for (at, (operator, place)) in operators.iter().enumerate() {
            for edit in nodes::edits(operator, *place, &tables, &indexes) {
                let mut program = base.clone();
                let mut changed = (*program.entries[e]).clone();
                replace(&mut changed.root, at, &edit.node);
                if edit.renumber {
                    let mut next = 0;
                    changed.root.walk_mut(&mut |n| {
                        n.id = next;
                        next += 1;
                    });
                }
                program.entries[e] = std::sync::Arc::new(changed);
                out.push(Mutant {
                    what: format!("{}: operator {at}: {}", entry.name, edit.what),
                    program,
                    sound: edit.sound,
                });
            }
        }
    }
    out
}

/// The operators of a tree, pre-order, each with its place.
fn gather<'a>(node: &'a Node, place: nodes::Place, out: &mut Vec<(&'a Node, nodes::Place)>) {
    out.push((node, place));
    let counts: Vec<*const Node> = match &node.op {
        Op::Limit { count, .. } => vec![&**count],
        Op::Combinator(rqc_plan::Combinator::Take | rqc_plan::Combinator::Skip, _, args) => {
            args.get(1).into_iter().map(|a| a as *const Node).collect()
        }
        Op::TopK { k, .. } => vec![&**k],
        _ => Vec::new(),
    };
    for child in node.children() {
        let in_count = place.in_count || counts.contains(&(child as *const Node));
        gather(child, nodes::Place { in_count }, out);
    }
}

/// `root` with its `at`-th operator (pre-order) replaced by `by`.
fn replace(root: &mut Node, at: usize, by: &Node) {
    let mut seen = 0;
    let mut done = false;
    root.walk_mut(&mut |n| {
        if !done && seen == at {
            *n = by.clone();
            done = true;
        }
        seen += 1;
    });
}

/// A database in memory with the base program and rows that fill its
/// islands: author 1 has the 4 posts its bound allows, the small table its
/// 6 rows.
fn stocked(base: &CompiledProgram) -> Database {
    let mut db = Database::in_memory();
    db.install(base.clone()).unwrap();
    for (id, handle) in [(1, "ann"), (2, "bob"), (3, "cy")] {
        db.run("add_user", &[id.into(), handle.into(), (id * 10).into()])
            .unwrap();
    }
    for (id, author, at) in [
        (1, 1, 5),
        (2, 1, 6),
        (3, 1, 2),
        (4, 1, 9),
        (5, 2, 1),
        (6, 2, 4),
    ] {
        db.run(
            "post",
            &[id.into(), author.into(), at.into(), format!("t{id}").into()],
        )
        .unwrap();
    }
    for (name, weight) in [("a", 1), ("b", 2), ("c", 3), ("d", 0), ("e", 5), ("f", 2)] {
        db.run("tag", &[name.into(), weight.into()]).unwrap();
    }
    db
}

/// Three argument lists for an entry point: ordinary, at the edges, odd.
fn arguments(entry: &rqc_plan::Entry) -> Vec<Vec<Value>> {
    (0..3)
        .map(|variant| {
            entry
                .params
                .iter()
                .map(|p| match &p.ty {
                    ParamType::Scalar(ty) => scalar(ty, variant, p.min, p.max),
                    ParamType::List(ty) => {
                        let len = p.max.unwrap_or(3).clamp(0, 3) as usize;
                        Value::List(vec![
                            scalar(ty, 0, None, None);
                            [2.min(len), len, 0][variant]
                        ])
                    }
                    ParamType::Records(_) => Value::List(Vec::new()),
                })
                .collect()
        })
        .collect()
}

/// An `Int` at its declared ends where it has them (`>= min`, `<= max`).
fn scalar(ty: &rqc_plan::ColumnType, variant: usize, min: Option<i64>, max: Option<i64>) -> Value {
    use rqc_plan::ColumnType::*;
    match ty {
        Int => Value::Int([1, max.unwrap_or(2), min.unwrap_or(-1)][variant]),
        String => Value::Str(["ann", "", "b"][variant].into()),
        Bool => Value::Bool(variant == 0),
        Float => Value::Float(1.5),
        Optional(inner) if variant == 2 => {
            let _ = inner;
            Value::Null
        }
        Optional(inner) => scalar(inner, variant, min, max),
    }
}

/// Installs an accepted mutant into a stocked database, runs every entry
/// point, and checks the database and the honest program after; the
/// problems found.
fn run_accepted(base: CompiledProgram, mutant: CompiledProgram) -> Vec<String> {
    let mut problems = Vec::new();
    let mut db = stocked(&base);
    if let Err(error) = db.install(mutant.clone()) {
        if BUGS.contains(&error.code()) {
            problems.push(format!("install: {error}"));
        }
        return problems;
    }
    for entry in &mutant.entries {
        for args in arguments(entry) {
            if let Err(error) = db.run_entry(entry, &args) {
                if BUGS.contains(&error.code()) {
                    problems.push(format!("{} {args:?}: {error}", entry.name));
                }
            }
        }
    }
    problems.extend(invariants(&mut db, &base));
    problems
}

/// The database verifies, its rows fit their types, and the honest
/// program (installed again, dropping what the mutant added) answers what
/// the rows say.
fn invariants(db: &mut Database, base: &CompiledProgram) -> Vec<String> {
    let mut problems = Vec::new();
    let verification = db.verify().unwrap();
    problems.extend(verification.problems.iter().map(|p| format!("verify: {p}")));
    let schema = db.program().unwrap().schema.clone();
    let dump = db.dump().unwrap();
    for ((name, rows), table) in dump.tables.iter().zip(&schema.tables) {
        for row in rows {
            let values: Vec<Value> = table
                .columns
                .iter()
                .map(|c| row.field(&c.name).cloned().unwrap_or(Value::Null))
                .collect();
            if let Err(error) = rqc_runtime::row_types::check_types(table, &values) {
                problems.push(format!("a row of {name} does not fit: {}", error.message));
            }
        }
    }
    let drops = rqc_runtime::catalog::dropped(&schema, &base.schema);
    if db.install_dropping(base.clone(), &drops).is_err() {
        // The mutant's schema grew in a way the base cannot take back (a
        // column added): a migration, not damage.
        return problems;
    }
    problems.extend(honest_answers(db));
    problems
}

/// The honest program's answers against a recount of the dumped rows.
fn honest_answers(db: &Database) -> Vec<String> {
    let mut problems = Vec::new();
    let dump = db.dump().unwrap();
    let rows = |table: &str| -> Vec<Value> {
        dump.tables
            .iter()
            .find(|(n, _)| n == table)
            .map(|(_, r)| r.clone())
            .unwrap_or_default()
    };
    let int = |row: &Value, field: &str| match row.field(field) {
        Some(Value::Int(n)) => *n,
        other => panic!("{field}: {other:?}"),
    };
    for user in rows("User") {
        let found = db.run("user", &[int(&user, "id").into()]).unwrap().value;
        if found != user {
            problems.push(format!(
                "user({}) answered {found}, the row is {user}",
                int(&user, "id")
            ));
        }
        let handle = user.field("handle").cloned().unwrap();
        let found = db
            .run("by_handle", std::slice::from_ref(&handle))
            .unwrap()
            .value;
        if found != user {
            problems.push(format!(
                "by_handle({handle}) answered {found}, the row is {user}"
            ));
        }
    }
    let posts = rows("Post");
    for author in 1..=3 {
        let mut expected: Vec<i64> = posts
            .iter()
            .filter(|p| int(p, "author") == author)
            .map(|p| int(p, "id"))
            .collect();
        expected.sort();
        let output = db.run("posts", &[author.into()]).unwrap();
        let mut found: Vec<i64> = output.rows().iter().map(|p| int(p, "id")).collect();
        found.sort();
        if found != expected {
            problems.push(format!(
                "posts({author}) answered {found:?}, the rows are {expected:?}"
            ));
        }
        let ats: Vec<i64> = posts
            .iter()
            .filter(|p| int(p, "author") == author)
            .map(|p| int(p, "at"))
            .collect();
        let counts = db
            .run("counts", &[Value::List(vec![author.into()])])
            .unwrap();
        let count = &counts.rows()[0];
        let last = ats.iter().max().map_or(Value::Null, |m| Value::Int(*m));
        if int(count, "n") != ats.len() as i64
            || int(count, "sum") != ats.iter().sum::<i64>()
            || count.field("last") != Some(&last)
        {
            problems.push(format!(
                "counts([{author}]) answered {count}, the rows give {} posts, sum {}, last {last}",
                ats.len(),
                ats.iter().sum::<i64>()
            ));
        }
    }
    let mut expected: Vec<Value> = rows("Tag")
        .iter()
        .filter(|t| int(t, "weight") > 1)
        .map(|t| t.field("name").cloned().unwrap())
        .collect();
    let mut found = db.run("tags", &[]).unwrap().rows().to_vec();
    expected.sort_by_key(|v| v.to_string());
    found.sort_by_key(|v| v.to_string());
    if found != expected {
        problems.push(format!(
            "tags() answered {found:?}, the rows give {expected:?}"
        ));
    }
    problems
}

#[test]
fn mutated_plans_never_panic_hang_or_break_an_invariant() {
    let base = rqc_tests::accepted(BASE);
    let all = mutants(&base);
    let stride = match std::env::var("RQC_PLAN_MUTATIONS").as_deref() {
        Ok("all") => 1,
        Ok(n) => n.parse().expect("RQC_PLAN_MUTATIONS: `all` or a stride"),
        Err(_) => 8,
    };
    let (mut run, mut accepted, mut failures) = (0, 0, Vec::new());
    for mutant in all.into_iter().step_by(stride) {
        run += 1;
        let program = mutant.program.clone();
        let verdict = match within(20, move || rqc_runtime::verifier::verify(&program)) {
            Ok(verdict) => verdict,
            Err(why) => {
                failures.push(format!("{}: the verifier {why}", mutant.what));
                continue;
            }
        };
        match verdict {
            Err(error) => {
                let ours = ("E0610".."E0650").contains(&error.code);
                if !ours || mutant.sound {
                    failures.push(format!(
                        "{}: refused [{}] {}",
                        mutant.what, error.code, error.message
                    ));
                }
            }
            Ok(()) => {
                accepted += 1;
                let (base, program) = (base.clone(), mutant.program);
                match within(60, move || run_accepted(base, program)) {
                    Ok(problems) if problems.is_empty() => {}
                    Ok(problems) => {
                        failures.push(format!("{}: {}", mutant.what, problems.join("; ")))
                    }
                    Err(why) => failures.push(format!("{}: the run {why}", mutant.what)),
                }
            }
        }
    }
    eprintln!(
        "{run} mutated plans, {accepted} accepted, {} failures",
        failures.len()
    );
    assert!(run > 100, "only {run} cases");
    assert!(
        failures.is_empty(),
        "{} of {run}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
