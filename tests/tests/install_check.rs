//! The runtime's plan verifier asked of each plan as it is made (`rqc::install::InstallCheck`): silent on honest plans, and a refusal it finds is a rejected entry point whose help says what the refusal means.

use rqc::install::{compile_verified, InstallCheck};
use rqc_compiler::plan::PlanCheck;
use rqc_compiler::{compile, Compilation};

const SHOP: &str = "
module shop

table Item {
  id: Int key
  shelf: Int
  price: Int
  index by_shelf (shelf, price)
}

mutation add(id: Int, shelf: Int, price: Int) = insert Item { id: id, shelf: shelf, price: price }

query cheapest(shelf: Int, n: Int <= 10) = Item.by_shelf[shelf] |> take(n)

fn either(c: Bool) -> (Int -> Int) -> Int = g => if c { g(1) } else { g(2) }

query nested(shelf: Int, c: Bool) =
  either(c)(x => either(c)(y => Item.by_shelf[shelf] |> take(x + y) |> count()))
";

fn files() -> Vec<(String, String)> {
    vec![("shop.rq".to_string(), SHOP.to_string())]
}

/// Each verdict: name and whether accepted.
fn verdicts(compilation: &Compilation) -> Vec<(String, bool)> {
    compilation
        .checked
        .verdicts
        .iter()
        .map(|v| (v.name.clone(), v.accepted))
        .collect()
}

#[test]
fn honest_plans_pass_and_keep_their_verdicts_and_plans() {
    let plain = compile(&files());
    let verified = compile_verified(&files());
    assert!(
        verified.diagnostics.is_empty(),
        "{:?}",
        verified.diagnostics
    );
    assert_eq!(verdicts(&plain), verdicts(&verified));
    assert_eq!(plain.program, verified.program);
    assert_eq!(verified.program.entries.len(), 3);
    for entry in &verified.program.entries {
        assert_eq!(InstallCheck.refusal(&verified.program.schema, entry), None);
    }
}

#[test]
fn a_refusal_other_than_the_verifiers_own_limit_is_called_a_bug() {
    let program = compile(&files()).program;
    let mut entry = rqc_plan::Entry::clone(
        program
            .entries
            .iter()
            .find(|e| e.name == "cheapest")
            .unwrap(),
    );
    // A claim below what the plan reads: what only a bug in the checker
    // (or an edited plan) could write.
    entry.bound.rows = 1;
    let refusal = InstallCheck
        .refusal(&program.schema, &entry)
        .expect("a claim below the plan's reads is refused");
    assert!(refusal.code.starts_with("E06"), "{refusal:?}");
    assert_ne!(refusal.code, "E0641");
    assert!(refusal.message.contains("shop.cheapest"), "{refusal:?}");
    assert!(refusal.help.contains("bug in rqc"), "{refusal:?}");
}

/// Each schema the plan verifier would refuse at install (E0610–E0612) is
/// an error where it is written, so `rqc check` never accepts a program
/// whose install is refused whole.
#[test]
fn schemas_the_verifier_refuses_are_the_checkers_errors() {
    let long = "a".repeat(256);
    let cases = [
        (
            "table T {\n  id: Int key\n  c: Int\n  index i (c, c)\n}\n".to_string(),
            "E0248",
        ),
        (
            "table T {\n  id: Int key\n  c: Int\n  d: Int\n  index i (c desc, d asc, c)\n}\n"
                .to_string(),
            "E0248",
        ),
        ("table T {\n  a: Int\n  c: Int\n  key (a, a)\n}\n".to_string(), "E0248"),
        (
            "table T {\n  id: Int key\n  g: Int\n  index by_g (g)\n  bound g <= 3\n  bound (g) <= 5\n}\n"
                .to_string(),
            "E0249",
        ),
        (format!("table T{long} {{\n  id: Int key\n}}\n"), "E0010"),
        (format!("table T {{\n  id: Int key\n  {long}: Int\n}}\n"), "E0010"),
        (
            format!("table T {{\n  id: Int key\n  c: Int\n  index {long} (c)\n}}\n"),
            "E0010",
        ),
    ];
    for (source, code) in cases {
        let source = format!("{source}query q(x: Int) = x\n");
        let compilation = compile_verified(&[("s.rq".to_string(), source.clone())]);
        let codes: Vec<&str> = compilation
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, [code], "{source}");
        assert!(!compilation.checked.shape_sound, "{source}");
    }
}

/// A chain of named functions each passing the function it was given to
/// the next: the checker costs each once, the verifier follows the
/// applications, at most 64 deep (E0640). Past that the entry point is
/// rejected where it is written, with a help of its own, not "a bug".
#[test]
fn applications_nested_past_the_verifiers_depth_are_rejected_with_their_own_help() {
    let mut source = String::from("fn h0(g: Int -> Int) -> Int = g(1)\n");
    for i in 1..=64 {
        source.push_str(&format!(
            "fn h{i}(g: Int -> Int) -> Int = h{}(y => g(y) + 1)\n",
            i - 1
        ));
    }
    source.push_str("query q64(x: Int) = h64(z => z + x)\nquery q63(x: Int) = h63(z => z + x)\n");
    let compilation = compile_verified(&[("h.rq".to_string(), source)]);
    let verdict = |name: &str| compilation.checked.verdict(name).unwrap().clone();
    assert!(verdict("q63").accepted);
    let deep = verdict("q64");
    assert!(!deep.accepted);
    assert!(
        deep.cause.as_deref().unwrap_or("").starts_with("E0640"),
        "{:?}",
        deep.cause
    );
    let diagnostic = compilation
        .diagnostics
        .iter()
        .find(|d| d.code == "E0640")
        .expect("an E0640 diagnostic");
    assert!(
        diagnostic
            .help
            .iter()
            .any(|h| h.contains("64 applications deep")),
        "{:?}",
        diagnostic.help
    );
    assert!(
        !diagnostic.help.iter().any(|h| h.contains("bug")),
        "{:?}",
        diagnostic.help
    );
    let planned: Vec<&str> = compilation
        .program
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(planned, ["q63"]);
}
