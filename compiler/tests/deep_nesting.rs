//! Input nested past any reasonable depth never overflows a stack: each shape either checks, or is refused at the stated limit with E0008 and the rest of the program checked.

use rqc_compiler::compile;
use rqc_compiler::syntax::depth::MAX_DEPTH;

/// Programs nesting one construct `n` levels deep.
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("negation", format!("query q(a: Int) = {}a", "-".repeat(n))),
        (
            "sum",
            format!("query q(a: Int) = {}", vec!["a"; n].join(" + ")),
        ),
        (
            "list",
            format!("query q(a: Int) = {}a{}", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "record",
            format!("query q(a: Int) = {}a{}", "{ x: ".repeat(n), " }".repeat(n)),
        ),
        (
            "if",
            format!(
                "query q(a: Int) = {}a{}",
                "if a > 0 { ".repeat(n),
                " } else { 0 }".repeat(n)
            ),
        ),
        (
            "pipe",
            format!("query q(a: Int) = [a]{}", " |> map(x => x + 1)".repeat(n)),
        ),
        (
            "call",
            format!(
                "fn id(x: Int) = x\nquery q(a: Int) = {}a{}",
                "id(".repeat(n),
                ")".repeat(n)
            ),
        ),
        (
            "lambda",
            format!("query q(a: Int) = {}a", "x => ".repeat(n)),
        ),
        (
            "list type",
            format!(
                "fn f(x: {}Int{}) = 1\nquery q(a: Int) = a",
                "[".repeat(n),
                "]".repeat(n)
            ),
        ),
        (
            "option type",
            format!(
                "table T {{ id: Int key  v: Int{} }}\nquery q(a: Int) = a",
                "?".repeat(n)
            ),
        ),
    ]
}

#[test]
fn any_depth_is_checked_or_refused_at_the_limit_with_its_code() {
    // Far past the limit: refused, and the program's other parts still checked.
    for (shape, source) in shapes(30_000) {
        let program = format!("{source}\nquery ok(a: Int) = a");
        let compilation = compile(&[("deep.rq".to_string(), program)]);
        let codes: Vec<&str> = compilation
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(codes.contains(&"E0008"), "{shape}: {codes:?}");
        assert!(
            compilation.program.entry("ok").is_some(),
            "{shape}: the rest is checked"
        );
    }
    // Just within it: no E0008, whatever the checker then says.
    for (shape, source) in shapes(MAX_DEPTH / 2 - 2) {
        let compilation = compile(&[("deep.rq".to_string(), source)]);
        let codes: Vec<&str> = compilation
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(!codes.contains(&"E0008"), "{shape}: {codes:?}");
    }
}

/// `lambdas` lambdas bound by `let`, each body `levels` additions deep
/// around an application of the one before; the last applied to `x`.
fn nested_lambdas(lambdas: usize, levels: usize) -> String {
    let mut text = String::from("module m\nquery q(x: Int) = {\n");
    for i in 1..=lambdas {
        let inner = if i == 1 {
            "y".to_string()
        } else {
            format!("f{}(y)", i - 1)
        };
        text.push_str(&format!(
            "  let f{i} = y => {}{inner}{};\n",
            "1 + (".repeat(levels),
            ")".repeat(levels)
        ));
    }
    text.push_str(&format!("  f{lambdas}(x)\n}}\n"));
    text
}

/// A lambda's body is checked inside the expression that applies it, so
/// applied bodies add up their depths: the checker holds three
/// definitions' depth (`MAX_CHECK_NESTING`), and refuses more with E0424
/// instead of overflowing its stack.
#[test]
fn applied_lambda_bodies_nest_to_the_stated_limit_and_no_further() {
    let codes = |source: String| -> Vec<String> {
        compile(&[("m.rq".to_string(), source)])
            .diagnostics
            .iter()
            .map(|d| d.code.clone())
            .collect()
    };
    // 2,971 levels in all: accepted.
    assert_eq!(codes(nested_lambdas(3, 990)), Vec::<String>::new());
    // 7 × 480: refused, once.
    assert_eq!(codes(nested_lambdas(7, 480)), ["E0424"]);
    // 50 × 900, where an earlier build overflowed: refused.
    assert_eq!(codes(nested_lambdas(50, 900)), ["E0424"]);
}
