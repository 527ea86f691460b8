//! The `wide` section: programs wide where the corpus is narrow (thousands of tables, columns, indexes, aggregates, parameters, record fields, list elements, type parameters, misspellings, one very long line), each checked at two sizes eight times apart, to show the time grows linearly.

/// A program of `n` of something, as one module's text.
type Shape = fn(usize) -> String;

/// `line(i)` for each `i` below `n`, one after the other.
fn each(n: usize, line: impl Fn(usize) -> String) -> String {
    (0..n).map(line).collect()
}

/// `item(i)` for each `i` below `n`, joined by commas.
fn listed(n: usize, item: impl Fn(usize) -> String) -> String {
    (0..n).map(item).collect::<Vec<_>>().join(", ")
}

const SHAPES: [(&str, Shape); 11] = [
    ("tables, each read", |n| {
        let tables = each(n, |i| format!("table T{i} {{ id: Int key }}\n"));
        let reads = each(n, |i| format!("query q{i}(k: Int) = T{i}[k]\n"));
        format!("module wide\n{tables}{reads}")
    }),
    ("columns of one table, each read", |n| {
        let columns = each(n, |i| format!("  c{i}: Int\n"));
        let reads = each(n, |i| format!("query q{i}(k: Int) = W[k].c{i}\n"));
        format!("module wide\ntable W {{\n  id: Int key\n{columns}}}\n{reads}")
    }),
    ("indexes of one table, each read", |n| {
        let indexes = each(n, |i| format!("  index i{i} (a)\n"));
        let reads = each(n, |i| {
            format!("query q{i}(k: Int) = W.i{i}[k] |> take(1)\n")
        });
        format!("module wide\ntable W {{\n  id: Int key\n  a: Int\n{indexes}}}\n{reads}")
    }),
    ("aggregates, each read", |n| {
        let aggregates = each(n, |i| format!("aggregate a{i} = count(L) by post\n"));
        let reads = each(n, |i| format!("query q{i}(p: Int) = a{i}[p]\n"));
        format!("module wide\ntable L {{\n  id: Int key\n  post: Int\n}}\n{aggregates}{reads}")
    }),
    ("parameters of one query", |n| {
        let params = listed(n, |i| format!("p{i}: Int"));
        let fields = listed(n.min(5_000), |i| format!("f{i}: p{i}"));
        format!("module wide\nquery q({params}) = {{ {fields} }}\n")
    }),
    ("fields of one record", |n| {
        let fields = listed(n, |i| format!("f{i}: a"));
        format!("module wide\nquery q(a: Int) = {{ {fields} }}\n")
    }),
    // Each element's bound is a different parameter: the list's bound is
    // the join of them all.
    ("parameters in one list", |n| {
        let params = listed(n, |i| format!("p{i}: Int"));
        let items = listed(n, |i| format!("p{i}"));
        format!("module wide\nquery q({params}) = [{items}]\n")
    }),
    ("type parameters of one function, one call", |n| {
        let generics = listed(n, |i| format!("A{i}"));
        let params = listed(n, |i| format!("x{i}: A{i}"));
        let args = listed(n, |_| "k".to_string());
        format!("module wide\nfn f<{generics}>({params}) = x0\nquery q(k: Int) = f({args})\n")
    }),
    ("misspelt columns of one table", |n| {
        let columns = each(n, |i| format!("  c{i}: Int\n"));
        let reads = each(n, |i| format!("query q{i}(k: Int) = W[k].d{i}x\n"));
        format!("module wide\ntable W {{\n  id: Int key\n{columns}}}\n{reads}")
    }),
    ("misspelt functions", |n| {
        let functions = each(n, |i| format!("fn f{i}(k: Int) = k\n"));
        let calls = each(n, |i| format!("query q{i}(k: Int) = g{i}x(k)\n"));
        format!("module wide\n{functions}{calls}")
    }),
    ("unknown imports on one line", |n| {
        let names = listed(n, |i| format!("x{i}"));
        format!("module wide\nimport other.{{{names}}}\n")
    }),
];

/// A second module, for the imports.
const OTHER: &str = "module other\npub table O { id: Int key }\n";

/// Each shape at 1,000 and 8,000, checked and its diagnostics rendered.
pub fn wide() {
    for (shape, program) in SHAPES {
        super::scaling(shape, &[1_000, 8_000], |n| {
            let files = vec![
                ("wide.rq".to_string(), program(n)),
                ("other.rq".to_string(), OTHER.to_string()),
            ];
            super::median_of_three(|| super::check_and_render(&files))
        });
    }
}
