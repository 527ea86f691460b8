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
