//! Programs wide in one thing (many columns, indexes, aggregates, parameters, type parameters, names shadowed) check as narrow ones do: the lookups past a few names go through maps and sets (the benchmark's `wide` section shows the time stays linear), and must find exactly what a search would.

use rqc_compiler::compile;

fn check(text: &str) -> rqc_compiler::Compilation {
    compile(&[("wide.rq".to_string(), format!("module wide\n{text}"))])
}

fn codes(compilation: &rqc_compiler::Compilation) -> Vec<&str> {
    compilation
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

/// The help lines of the diagnostics with `code`.
fn help(compilation: &rqc_compiler::Compilation, code: &str) -> String {
    compilation
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .flat_map(|d| d.help.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_column_index_and_aggregate_of_a_wide_table_is_found_by_name() {
    let n = 40;
    let columns: String = (0..n).map(|i| format!("  c{i}: Int\n")).collect();
    let indexes: String = (0..n).map(|i| format!("  index i{i} (c{i})\n")).collect();
    let aggregates: String = (0..n)
        .map(|i| format!("aggregate a{i} = sum(W.c{i}) by c0\n"))
        .collect();
    let reads: String = (0..n)
        .map(|i| {
            format!(
                "query col{i}(k: Int) = W[k].c{i}\nquery idx{i}(k: Int) = W.i{i}[k] |> take(3)\nquery agg{i}(k: Int) = a{i}[k]\n"
            )
        })
        .collect();
    let text = format!("table W {{\n  id: Int key\n{columns}{indexes}}}\n{aggregates}{reads}");
    let compilation = check(&text);
    assert!(
        codes(&compilation).is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let verdicts = &compilation.checked.verdicts;
    assert_eq!(verdicts.len(), 3 * n);
    assert!(verdicts.iter().all(|v| v.accepted));
    // The last index is the one read: its column in the plan's signature.
    let last = verdicts.iter().find(|v| v.name == "idx39").unwrap();
    assert_eq!(last.seeks_max(), Some(1));

    // Misspelt, each is refused with the near name.
    let wrong = format!(
        "{text}query bad_col(k: Int) = W[k].c39x\nquery bad_idx(k: Int) = W.i39x[k] |> take(1)\nquery bad_agg(k: Int) = a39x[k]\n"
    );
    let compilation = check(&wrong);
    assert_eq!(codes(&compilation), ["E0202", "E0216", "E0201"]);
    assert!(help(&compilation, "E0202").contains("`c39`"));
    assert!(help(&compilation, "E0216").contains("`W.i39`"));
    assert!(help(&compilation, "E0201").contains("`a39`"));
}

#[test]
fn a_help_line_lists_twelve_of_many_columns() {
    let columns: String = (0..40).map(|i| format!("  c{i}: Int\n")).collect();
    let compilation = check(&format!(
        "table W {{\n  id: Int key\n{columns}}}\nquery q(k: Int) = W[k].zzzzzzzz\n"
    ));
    let help = help(&compilation, "E0202");
    assert!(help.contains("id, c0, c1"), "{help}");
    assert!(help.ends_with("and 29 more"), "{help}");
}

#[test]
fn many_type_parameters_bind_and_an_undeclared_one_is_refused() {
    let n = 40;
    let generics: Vec<String> = (0..n).map(|i| format!("A{i}")).collect();
    let params: Vec<String> = (0..n).map(|i| format!("x{i}: A{i}")).collect();
    let args = vec!["k"; n].join(", ");
    let function = format!(
        "fn f<{}>({}) = x{}\n",
        generics.join(", "),
        params.join(", "),
        n - 1
    );
    let compilation = check(&format!("{function}query q(k: Int) = f({args}) + 1\n"));
    assert!(
        codes(&compilation).is_empty(),
        "{:?}",
        compilation.diagnostics
    );

    // `A40` is not declared: an unknown type, however many are (and the
    // call of the broken function is not checked).
    let undeclared = function.replace("x0: A0", "x0: A40");
    let compilation = check(&format!("{undeclared}query q(k: Int) = f({args})\n"));
    assert_eq!(codes(&compilation), ["E0410", "E0304"]);
}

#[test]
fn a_failed_binding_leaves_the_type_parameters_as_they_were() {
    // The record argument binds `B` to `Int` through `a`, then fails on
    // `z` (`A` is `Int`, `z` a `String`): the whole trial is undone, so
    // `r` binds `B` to `String` and is accepted. Had `B` kept `Int`, `r`
    // were refused too.
    let compilation = check(
        "fn f<A, B>(q: A, p: { a: B, z: A }, r: B) = r\n\
         query bad() = f(1, { a: 2, z: \"s\" }, \"t\")\n",
    );
    assert_eq!(
        codes(&compilation),
        ["E0401"],
        "{:?}",
        compilation.diagnostics
    );
    assert!(compilation.diagnostics[0].help[0].contains("parameter `p`"));
}

#[test]
fn a_shadowing_name_ends_with_its_scope_and_the_outer_one_returns() {
    let compilation = check(
        "table T { id: Int key  v: String }\n\
         query q(x: Int) = {\n  let y = { let x = \"inner\"; x };\n  T[x]\n}\n\
         query r(x: Int) = [x] |> map(x => x + 1) |> map(y => T[x])\n",
    );
    assert!(
        codes(&compilation).is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    // Had the inner `x` (a String) outlived its block, `T[x]` were refused.
    assert!(compilation.checked.verdicts.iter().all(|v| v.accepted));
}

#[test]
fn a_parameter_declared_twice_among_many_is_refused_once() {
    let mut params: Vec<String> = (0..40).map(|i| format!("p{i}: Int")).collect();
    params.push("p17: Int".to_string());
    let compilation = check(&format!("query q({}) = p0\n", params.join(", ")));
    assert_eq!(codes(&compilation), ["E0203"]);
    assert!(compilation.diagnostics[0].message.contains("`p17`"));
}
