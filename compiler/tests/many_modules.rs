//! Programs of many modules: each module, import and definition is found by
//! its name (the benchmark's `files` section shows the time stays linear in
//! files), and a help line that would list every module lists a few.

use rqc_compiler::compile;

/// `count` files, a module each: the first declares a table and a public
/// function, every other imports both and defines three queries over them.
fn program(count: usize) -> Vec<(String, String)> {
    (0..count)
        .map(|m| {
            let mut text = format!("module m{m}\n\n");
            if m == 0 {
                text.push_str(
                    "pub table T {\n  id: Int key\n  owner: Int\n  index by_owner (owner)\n  bound owner <= 100\n}\n\n\
                     pub fn of(o: Int) = T.by_owner[o]\n",
                );
            } else {
                text.push_str("import m0.{T, of}\n\n");
                for q in 0..3 {
                    text.push_str(&format!("pub query q{q}(o: Int) = of(o + {m})\n\n"));
                }
            }
            (format!("m{m}.rq"), text)
        })
        .collect()
}

#[test]
fn every_module_finds_its_imports_and_definitions() {
    let count = 300;
    let compilation = compile(&program(count));
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics.first()
    );
    let verdicts = &compilation.checked.verdicts;
    // Three queries in each module after the first, and the function.
    assert_eq!(verdicts.len(), 3 * (count - 1) + 1);
    for m in 1..count {
        for q in 0..3 {
            let verdict = verdicts
                .iter()
                .find(|v| v.module == format!("m{m}") && v.name == format!("q{q}"))
                .unwrap_or_else(|| panic!("m{m}.q{q} has a verdict"));
            assert!(verdict.accepted, "m{m}.q{q} is accepted");
            assert_eq!(verdict.seeks_max(), Some(1), "m{m}.q{q} reads one range");
        }
    }
}

#[test]
fn an_unknown_module_lists_a_few_of_the_modules() {
    let mut files = program(40);
    files.push((
        "app.rq".to_string(),
        "module app\n\nimport zzzzzzzz\n\nquery q() = 1\n".to_string(),
    ));
    let compilation = compile(&files);
    let unknown: Vec<_> = compilation
        .diagnostics
        .iter()
        .filter(|d| d.code == "E0210")
        .collect();
    assert_eq!(unknown.len(), 1, "{:?}", compilation.diagnostics);
    let help = unknown[0].help.join("\n");
    // 41 user modules (the 40 and `app`): twelve named, the rest counted.
    assert!(help.contains("m0, m1, m2"), "{help}");
    assert!(help.ends_with("and 29 more)"), "{help}");
    assert!(!help.contains("m39"), "{help}");
}

#[test]
fn a_few_modules_are_all_listed() {
    let files = vec![
        ("a.rq".to_string(), "module a\n\nfn f() = 1\n".to_string()),
        (
            "b.rq".to_string(),
            "module b\n\nimport zzzzzzzz\n\nquery q() = 1\n".to_string(),
        ),
    ];
    let compilation = compile(&files);
    let unknown = compilation
        .diagnostics
        .iter()
        .find(|d| d.code == "E0210")
        .expect("the import is refused");
    assert!(
        unknown
            .help
            .join("\n")
            .ends_with("(the modules here are: a, b)"),
        "{:?}",
        unknown.help
    );
}
