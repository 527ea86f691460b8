//! Incremental analysis: after an edit, only what depends on it re-runs.

use rqc_compiler::db::Analysis;

const LIB: &str = "module lib
table Item { id: Int key  owner: Int  at: Int  index by_owner (owner, at desc) }
pub fn one(id: Int) = Item[id]
pub fn two(id: Int) = one(id)
pub fn apart(o: Int) = Item.by_owner[o] |> take(5)
pub query q(id: Int) = two(id)
";

/// Checks everything, then returns the `check_def` runs an edit caused.
fn reruns(before: &str, after: &str) -> Vec<String> {
    let mut analysis = Analysis::new(&[("lib.rq".into(), before.into())]);
    let _ = analysis.program();
    analysis.db.start_log();
    analysis.set_file("lib.rq", after);
    let _ = analysis.program();
    let mut ran: Vec<String> = analysis
        .db
        .take_log()
        .into_iter()
        .filter(|e| e.starts_with("check_def"))
        .collect();
    ran.sort();
    ran
}

#[test]
fn editing_a_body_rechecks_it_alone_when_its_signature_stays() {
    // `one` reads the same row by an equal key: same type, same cost.
    let edited = LIB.replace(
        "pub fn one(id: Int) = Item[id]",
        "pub fn one(id: Int) = Item[id + 0]",
    );
    assert_eq!(reruns(LIB, &edited), vec!["check_def(lib.one)"]);
}

#[test]
fn a_changed_signature_rechecks_the_callers_too() {
    // A different result type: `two` and `q` depend on it.
    let edited = LIB.replace(
        "pub fn one(id: Int) = Item[id]",
        "pub fn one(id: Int) = Item[id] |> map(i => i.at)",
    );
    assert_eq!(
        reruns(LIB, &edited),
        vec![
            "check_def(lib.one)",
            "check_def(lib.q)",
            "check_def(lib.two)"
        ]
    );
}

#[test]
fn moving_definitions_without_changing_them_rechecks_nothing() {
    let edited = LIB.replace(
        "pub fn one(id: Int) = Item[id]",
        "\n\n// a comment that shifts everything below\npub fn one(id: Int) = Item[id]",
    );
    assert_eq!(reruns(LIB, &edited), Vec::<String>::new());
}

#[test]
fn diagnostics_follow_their_definition_when_it_moves() {
    let broken = LIB.replace(
        "pub fn apart(o: Int) = Item.by_owner[o] |> take(5)",
        "pub fn apart(o: Int) = Item.by_owner[o] |> count()",
    );
    let mut analysis = Analysis::new(&[("lib.rq".into(), broken.clone())]);
    let (first, ..) = analysis.program();
    let before = first.diagnostics[0].primary.span;
    let prefix = "// one more line\n";
    let shifted = format!("{prefix}{broken}");
    analysis.set_file("lib.rq", &shifted);
    let (second, ..) = analysis.program();
    let after = second.diagnostics[0].primary.span;
    assert_eq!(
        after.start as usize,
        before.start as usize + prefix.len(),
        "the diagnostic moved with its definition"
    );
    assert_eq!(&shifted[after.range()], "count()");
}

#[test]
fn a_broken_file_still_yields_what_can_be_known() {
    let broken = format!("{LIB}\npub query broken(id: Int) = Item[id] +\n");
    let analysis = Analysis::new(&[("lib.rq".into(), broken)]);
    let (checked, ..) = analysis.program();
    assert!(checked
        .diagnostics
        .iter()
        .any(|d| d.code == "E0102" || d.code == "E0101"));
    let q = checked.verdict("q").expect("q is still checked");
    assert!(q.accepted);
}

#[test]
fn plans_are_lowered_again_only_for_what_changed() {
    let two_queries = format!("{LIB}pub query other(o: Int) = Item.by_owner[o] |> take(3)\n");
    let mut analysis = Analysis::new(&[("lib.rq".into(), two_queries.clone())]);
    let _ = analysis.plans();
    analysis.db.start_log();
    analysis.set_file("lib.rq", &two_queries.replace("take(3)", "take(4)"));
    let plans = analysis.plans();
    let mut ran: Vec<String> = analysis
        .db
        .take_log()
        .into_iter()
        .filter(|e| e.starts_with("entry_plan"))
        .collect();
    ran.sort();
    assert_eq!(ran, vec!["entry_plan(lib.other)"]);
    assert_eq!(plans.len(), 2, "both plans are there");
}

/// The editor's diagnostics are the compiler's, for every corpus program
/// and every syntax-error case: the cheap path leaves nothing out. Run on
/// the deep stack every `rqc` command, the language server included, runs
/// on (`stack::try_with_deep_stack`): the corpus holds nests near the
/// depth limit, which a test thread's 2 MiB does not hold in a debug build.
#[test]
fn the_editors_diagnostics_are_the_whole_programs() {
    rqc_compiler::stack::try_with_deep_stack(editors_diagnostics_are_the_whole_programs)
        .expect("a deep stack");
}

fn editors_diagnostics_are_the_whole_programs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let mut seen = 0;
    for dir in ["corpus", "syntax-errors"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rq") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let analysis = Analysis::new(&[(path.display().to_string(), text)]);
            let whole = analysis.program().0.diagnostics;
            assert_eq!(analysis.diagnostics(), whole, "{}", path.display());
            seen += usize::from(!whole.is_empty());
        }
    }
    assert!(seen > 50, "the cases have diagnostics to compare ({seen})");
}
