//! The plan size limit (E0422) as every front end sees it: the diagnostic, the rejected verdict, no plan, and the editor's hover and inlay hint.

use rqc_compiler::db::Analysis;
use rqc_compiler::ide::{hover, inlay_hints};
use rqc_compiler::{compile, Compilation};

/// The diagnostics' codes, in order.
fn codes(compilation: &Compilation) -> Vec<&str> {
    compilation
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

/// The entry points that have a plan.
fn planned(compilation: &Compilation) -> Vec<&str> {
    compilation
        .program
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .collect()
}

/// Helpers `p1`…`p{depth}` that each call the one below twice: inlining
/// `p{depth}` copies `p0`'s body 2^depth times.
fn diamond(depth: usize) -> String {
    let mut text = String::from("module m\nfn p0(x: Int) = x + 1\n");
    for i in 1..=depth {
        text.push_str(&format!(
            "fn p{i}(x: Int) = p{}(x) + p{}(x + 1)\n",
            i - 1,
            i - 1
        ));
    }
    text.push_str(&format!(
        "query deep(x: Int) = p{depth}(x)\nquery shallow(x: Int) = p3(x)\n"
    ));
    text
}

#[test]
fn a_diamond_of_helpers_is_refused_quickly_with_e0422_and_its_neighbour_planned() {
    // 2^17 copies, past the 100,000 a plan may take, and steps within
    // what a query may take (2^40 copies are refused by their steps
    // first, E0426: below).
    let source = diamond(17);
    let compilation = compile(&[("m.rq".to_string(), source.clone())]);
    assert_eq!(
        codes(&compilation),
        ["E0422"],
        "{:?}",
        compilation.diagnostics
    );
    let diagnostic = &compilation.diagnostics[0];
    assert!(
        diagnostic.message.contains("`m.p17`"),
        "{}",
        diagnostic.message
    );
    assert!(
        source[diagnostic.primary.span.start as usize..].starts_with("query deep"),
        "the diagnostic points at the refused query"
    );
    assert!(!diagnostic.help.is_empty(), "it has a help line");
    let verdict = |name: &str| {
        compilation
            .checked
            .verdict(name)
            .unwrap_or_else(|| panic!("a verdict for {name}"))
            .accepted
    };
    assert!(!verdict("deep"), "a query without a plan is rejected");
    assert!(verdict("shallow"));
    assert_eq!(planned(&compilation), ["shallow"]);
}

#[test]
fn a_diamond_too_deep_to_plan_is_refused_by_its_steps_first() {
    // 2^40 copies: the checker counts their steps (E0426) before any
    // plan is built, so this finishes at once too.
    let compilation = compile(&[("m.rq".to_string(), diamond(40))]);
    assert_eq!(
        codes(&compilation),
        ["E0426"],
        "{:?}",
        compilation.diagnostics
    );
    assert_eq!(planned(&compilation), ["shallow"]);
}

#[test]
fn the_editor_shows_a_refused_plan_as_rejected() {
    // Like the language server, on the compiler's deep stack.
    rqc_compiler::stack::with_deep_stack(editor_shows_a_refused_plan_as_rejected);
}

fn editor_shows_a_refused_plan_as_rejected() {
    let source = diamond(17);
    let analysis = Analysis::new(&[("m.rq".to_string(), source.clone())]);
    let deep = source.find("deep").unwrap();
    let shown = hover(&analysis, "m.rq", deep).expect("a hover");
    assert!(shown.contains("rejected"), "{shown}");
    let shallow = source.find("shallow").unwrap();
    let shown = hover(&analysis, "m.rq", shallow).expect("a hover");
    assert!(shown.contains("seeks ≤ 0"), "{shown}");
    let hints = inlay_hints(&analysis, "m.rq");
    let line_of = |offset: usize| source[..offset].lines().count();
    let hint_on = |offset: usize| {
        hints
            .iter()
            .find(|(at, _)| line_of(*at) == line_of(offset))
            .map(|(_, text)| text.clone())
            .unwrap_or_default()
    };
    assert_eq!(hint_on(deep).trim(), "rejected");
    assert!(
        hint_on(shallow).trim().starts_with("seeks ≤ 0"),
        "{}",
        hint_on(shallow)
    );
    let codes: Vec<String> = analysis.diagnostics().into_iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0422"]);
}

#[test]
fn helpers_whose_depths_add_up_past_the_limit_are_refused_with_e0422() {
    // Each helper nests 600 levels (within a definition's 1,000) and calls
    // the one below at the bottom: two stack to 1,200 in the plan.
    let negations = "-".repeat(600);
    let source = format!(
        "module m\nfn h0(x: Int) = x\nfn h1(x: Int) = {negations}h0(x)\n\
         fn h2(x: Int) = {negations}h1(x)\nquery two(x: Int) = h2(x)\nquery one(x: Int) = h1(x)\n"
    );
    let compilation = compile(&[("m.rq".to_string(), source)]);
    let refused: Vec<(&str, &str)> = compilation
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].0, "E0422");
    assert!(
        refused[0].1.contains("`m.h2`") && refused[0].1.contains("1000 levels"),
        "{}",
        refused[0].1
    );
    assert_eq!(planned(&compilation), ["one"], "600 levels plan");
}

#[test]
fn a_lambda_copied_down_helpers_counts_against_the_budget() {
    // Each helper passes on a lambda that applies its own parameter four
    // times, so the lambda grows fourfold per level, though `c0` never
    // calls it: building the plan is what the budget holds.
    let mut source = String::from("module m\nfn c0(f: Int -> Int) = 0\n");
    for k in 1..=12 {
        source.push_str(&format!(
            "fn c{k}(f: Int -> Int) = c{}(x => f(f(f(f(x)))))\n",
            k - 1
        ));
    }
    source
        .push_str("query deep(k: Int) = c12(x => x + k)\nquery shallow(k: Int) = c2(x => x + k)\n");
    let compilation = compile(&[("m.rq".to_string(), source)]);
    assert_eq!(
        codes(&compilation),
        ["E0422"],
        "{:?}",
        compilation.diagnostics
    );
    assert!(compilation.diagnostics[0].message.contains("`m.c12`"));
    assert_eq!(planned(&compilation), ["shallow"]);
}
