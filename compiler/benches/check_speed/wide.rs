//! The `wide` section: programs wide where the corpus is narrow (thousands of tables, columns, indexes, aggregates, parameters, type parameters, misspellings, one very long line), each checked at two sizes eight times apart, to show the time grows linearly.

use rqc_compiler::compile;
use rqc_compiler::diagnostics::{renderer, RenderOptions};
use std::time::{Duration, Instant};

/// A program of `n` of something, as one module's text.
type Shape = fn(usize) -> String;

const SHAPES: [(&str, Shape); 9] = [
    ("tables, each read", |n| {
        let mut text = String::from("module wide\n");
        for i in 0..n {
            text.push_str(&format!("table T{i} {{ id: Int key }}\n"));
        }
        for i in 0..n {
            text.push_str(&format!("query q{i}(k: Int) = T{i}[k]\n"));
        }
        text
    }),
    ("columns of one table, each read", |n| {
        let columns: String = (0..n).map(|i| format!("  c{i}: Int\n")).collect();
        let reads: String = (0..n)
            .map(|i| format!("query q{i}(k: Int) = W[k].c{i}\n"))
            .collect();
        format!("module wide\ntable W {{\n  id: Int key\n{columns}}}\n{reads}")
    }),
    ("indexes of one table, each read", |n| {
        let indexes: String = (0..n).map(|i| format!("  index i{i} (a)\n")).collect();
        let reads: String = (0..n)
            .map(|i| format!("query q{i}(k: Int) = W.i{i}[k] |> take(1)\n"))
            .collect();
        format!("module wide\ntable W {{\n  id: Int key\n  a: Int\n{indexes}}}\n{reads}")
    }),
    ("aggregates, each read", |n| {
        let aggregates: String = (0..n)
            .map(|i| format!("aggregate a{i} = count(L) by post\n"))
            .collect();
        let reads: String = (0..n)
            .map(|i| format!("query q{i}(p: Int) = a{i}[p]\n"))
            .collect();
        format!("module wide\ntable L {{\n  id: Int key\n  post: Int\n}}\n{aggregates}{reads}")
    }),
    ("parameters of one query", |n| {
        let params: Vec<String> = (0..n).map(|i| format!("p{i}: Int")).collect();
        let fields: Vec<String> = (0..n.min(5_000)).map(|i| format!("f{i}: p{i}")).collect();
        format!(
            "module wide\nquery q({}) = {{ {} }}\n",
            params.join(", "),
            fields.join(", ")
        )
    }),
    ("type parameters of one function, one call", |n| {
        let generics: Vec<String> = (0..n).map(|i| format!("A{i}")).collect();
        let params: Vec<String> = (0..n).map(|i| format!("x{i}: A{i}")).collect();
        let args = vec!["k"; n].join(", ");
        format!(
            "module wide\nfn f<{}>({}) = x0\nquery q(k: Int) = f({args})\n",
            generics.join(", "),
            params.join(", ")
        )
    }),
    ("misspelt columns of one table", |n| {
        let columns: String = (0..n).map(|i| format!("  c{i}: Int\n")).collect();
        let reads: String = (0..n)
            .map(|i| format!("query q{i}(k: Int) = W[k].d{i}x\n"))
            .collect();
        format!("module wide\ntable W {{\n  id: Int key\n{columns}}}\n{reads}")
    }),
    ("misspelt functions", |n| {
        let functions: String = (0..n).map(|i| format!("fn f{i}(k: Int) = k\n")).collect();
        let calls: String = (0..n)
            .map(|i| format!("query q{i}(k: Int) = g{i}x(k)\n"))
            .collect();
        format!("module wide\n{functions}{calls}")
    }),
    ("unknown imports on one line", |n| {
        let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        format!("module wide\nimport other.{{{}}}\n", names.join(", "))
    }),
];

/// A second module, for the imports.
const OTHER: &str = "module other\npub table O { id: Int key }\n";

/// Each shape at 1,000 and 8,000, checked and its diagnostics rendered:
/// the time per item at 8,000 against at 1,000 is ≈ 1 when linear.
pub fn wide() {
    for (shape, program) in SHAPES {
        let mut per = Vec::new();
        for n in [1_000, 8_000] {
            let files = vec![
                ("wide.rq".to_string(), program(n)),
                ("other.rq".to_string(), OTHER.to_string()),
            ];
            let samples: Vec<Duration> = (0..3)
                .map(|_| {
                    let start = Instant::now();
                    let compilation = compile(&files);
                    let mut renderer =
                        renderer(&compilation.sources, RenderOptions { color: false });
                    let rendered: usize = compilation
                        .diagnostics
                        .iter()
                        .map(|d| renderer.render(d).len())
                        .sum();
                    std::hint::black_box(rendered);
                    start.elapsed()
                })
                .collect();
            let time = super::median(samples);
            per.push(time.as_secs_f64() * 1e6 / n as f64);
            println!(
                "{n:>6} {shape}: {:.0}ms, {:.1} µs each",
                time.as_secs_f64() * 1e3,
                per.last().unwrap()
            );
        }
        println!(
            "{shape}: time each at 8,000 / at 1,000: {:.2} (≈ 1 when linear)",
            per[1] / per[0]
        );
    }
}
