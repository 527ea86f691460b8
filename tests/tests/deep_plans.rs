//! Plans as deep as rqc allows run, install and reopen on an embedder's own thread (the default 2 MiB stack, a debug build); a program nested deeper than any rqc writes is refused with E0517, never a crash.

use rqc::{Database, Value};
use rqc_plan::stack::with_deep_stack;
use rqc_plan::{CompiledProgram, Node, Op, UnOp, MAX_PLAN_DEPTH};
use std::sync::Arc;

/// `-` applied `n` times to `x`.
fn negated(n: usize, x: &str) -> String {
    format!("{}{x}", "-".repeat(n))
}

/// A query nested 995 levels (a definition may nest 1,000), and one whose
/// helper's depth adds to its own: 490 + 480.
fn deep_source() -> String {
    format!(
        "module m\n\
         fn h0(x: Int) = x\n\
         fn h1(x: Int) = {}\n\
         query one(x: Int) = {}\n\
         query chained(x: Int) = {}\n",
        negated(480, "h0(x)"),
        negated(995, "x"),
        negated(490, "h1(x)"),
    )
}

fn answers(db: &Database, name: &str) -> Value {
    db.run(name, &[Value::Int(7)]).expect(name).value
}

#[test]
fn the_deepest_plans_allowed_install_run_and_reopen_on_a_default_thread() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path()).unwrap();
    db.install_source("m.rq", &deep_source())
        .expect("both plans are within the limits");
    // The test's own thread, spawned by the harness with 2 MiB.
    assert_eq!(answers(&db, "one"), Value::Int(-7));
    assert_eq!(answers(&db, "chained"), Value::Int(7));
    drop(db);
    let db = Database::open(dir.path()).expect("the database opens again");
    assert_eq!(answers(&db, "one"), Value::Int(-7));
    assert_eq!(answers(&db, "chained"), Value::Int(7));
}

#[test]
fn a_deep_plan_file_round_trips() {
    let compilation = rqc_compiler::compile(&[("m.rq".to_string(), deep_source())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.plan.json");
    let text = with_deep_stack(|| serde_json::to_string(&compilation.program).unwrap());
    std::fs::write(&file, text).unwrap();
    let mut db = Database::in_memory();
    db.install_plan(&file)
        .expect("rqc reads the plans it writes");
    assert_eq!(answers(&db, "one"), Value::Int(-7));
}

/// `root` under `n` more negations.
fn deepened(mut root: Node, n: usize) -> Node {
    for _ in 0..n {
        root = Node {
            id: 0,
            op: Op::Unary(UnOp::Neg, Box::new(root)),
            bound: None,
        };
    }
    root
}

#[test]
fn a_program_deeper_than_rqc_plans_is_refused_with_e0517() {
    let mut program: CompiledProgram =
        rqc_compiler::compile(&[("m.rq".to_string(), deep_source())]).program;
    let one = program
        .entries
        .iter()
        .position(|e| e.name == "one")
        .unwrap();
    let mut entry = (*program.entries[one]).clone();
    entry.root = deepened(entry.root, MAX_PLAN_DEPTH);
    program.entries[one] = Arc::new(entry);
    let mut db = Database::in_memory();
    let refused = with_deep_stack(|| db.install(program.clone())).unwrap_err();
    assert_eq!(refused.code(), "E0517", "{refused}");
    assert!(refused.to_string().contains("`one`"), "{refused}");
    // The same as a file, and a file of nothing but brackets.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.json");
    let text = with_deep_stack(|| serde_json::to_string(&program).unwrap());
    std::fs::write(&file, text).unwrap();
    let refused = db.install_plan(&file).unwrap_err();
    assert_eq!(refused.code(), "E0517", "{refused}");
    std::fs::write(&file, "[".repeat(1_000_000)).unwrap();
    let refused = db.install_plan(&file).unwrap_err();
    assert_eq!(refused.code(), "E0517", "{refused}");
    assert!(
        refused.to_string().contains("deeper than any plan"),
        "{refused}"
    );
    drop(db);
    let dropped = program;
    with_deep_stack(move || drop(dropped));
}
