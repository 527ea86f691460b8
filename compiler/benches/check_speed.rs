//! How fast `check` is: lines per second on generated modules of 1,250 to
//! 10,000 lines, and whether the time per line stays flat as modules grow
//! (it would grow with the size if anything were quadratic); the memory a
//! one-line query takes; re-checking after an edit; many diagnostics.
//!
//! Run with `cargo bench -p rqc-compiler --bench check_speed`.

use rqc_compiler::compile;
use rqc_compiler::db::Analysis;
use std::time::{Duration, Instant};

/// A module of about `lines` lines: tables, then queries, functions and
/// mutations over them, each a few lines, every one accepted.
fn generate(lines: usize) -> String {
    let mut out = String::from("module generated\n\n");
    // A fixed number of tables: the benchmark scales definitions.
    let tables = 20;
    for t in 0..tables {
        out.push_str(&format!(
            "table T{t} {{\n  id: Int key\n  owner: Int\n  at: Int\n  name: String unique\n  key2: Int\n  index by_owner (owner, at desc)\n  bound owner <= 100\n}}\n\n"
        ));
    }
    let mut d = 0;
    while out.lines().count() < lines {
        let t = d % tables;
        let u = (d + 1) % tables;
        out.push_str(&format!(
            "// definition {d}\nfn helper{d}(xs: [T{u}], n: Int) = xs |> sort_by(x => x.at, desc) |> take(n)\npub query q{d}(o: Int, k: Int <= 50) =\n  T{t}.by_owner[o] |> map(r => T{u}[r.key2]) |> flatten() |> helper{d}(k)\nmutation m{d}(id: Int, o: Int, at: Int, name: String) =\n  insert T{t} {{ id: id, owner: o, at: at, name: name, key2: 0 }}\n\n"
        ));
        d += 1;
    }
    out
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Resident memory of this process, in KB (Linux), at its peak so far.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Memory per query: the peak resident size while 40,000 one-line queries
/// are compiled, over the peak before, per query. Run first, while the
/// process has done nothing else.
fn memory_per_query() {
    let queries = 40_000;
    let mut text = String::from("module many\ntable T { id: Int key  v: Int }\n");
    for i in 0..queries {
        text.push_str(&format!("query q{i}(id: Int) = T[id]\n"));
    }
    let files = vec![("many.rq".to_string(), text)];
    let before = peak_rss_kb();
    let compilation = compile(&files);
    assert!(compilation.diagnostics.is_empty());
    let after = peak_rss_kb();
    drop(compilation);
    if let (Some(before), Some(after)) = (before, after) {
        println!(
            "memory: {queries} one-line queries compiled at a peak of {} MB more, {:.1} KB per query",
            (after - before) / 1024,
            (after - before) as f64 / queries as f64
        );
    }
}

fn main() {
    memory_per_query();
    println!(
        "{:>8} {:>12} {:>14} {:>16}",
        "lines", "median", "lines/s", "µs per line"
    );
    let mut per_line = Vec::new();
    for lines in [1_250, 2_500, 5_000, 10_000] {
        let text = generate(lines);
        let actual = text.lines().count();
        let files = vec![("generated.rq".to_string(), text)];
        let first = compile(&files);
        assert!(
            first.diagnostics.is_empty(),
            "the generated module checks clean: {:?}",
            first.diagnostics.first()
        );
        let samples: Vec<Duration> = (0..7)
            .map(|_| {
                let start = Instant::now();
                let compilation = compile(&files);
                std::hint::black_box(&compilation);
                start.elapsed()
            })
            .collect();
        let time = median(samples);
        let micros = time.as_secs_f64() * 1e6 / actual as f64;
        per_line.push(micros);
        println!(
            "{actual:>8} {:>10.1}ms {:>14.0} {micros:>16.2}",
            time.as_secs_f64() * 1e3,
            actual as f64 / time.as_secs_f64()
        );
    }
    println!(
        "time per line at 10,000 lines / at 1,250 lines: {:.2} (≈ 1 when checking is linear)",
        per_line[3] / per_line[0]
    );
    incremental();
    many_diagnostics();
}

/// Checking and rendering 5,000 to 20,000 diagnostics (syntax errors, and
/// definitions repeated): the time per diagnostic stays flat when
/// rendering indexes the sources once.
fn many_diagnostics() {
    use rqc_compiler::diagnostics::{renderer, RenderOptions};
    type Line = fn(usize) -> String;
    let shapes: [(&str, Line); 2] = [
        ("syntax errors", |i| format!("query q{i}(a: Int) = )\n")),
        ("repeated definitions", |_| {
            "query q(a: Int) = a\n".to_string()
        }),
    ];
    for (shape, line) in shapes {
        let mut per = Vec::new();
        for n in [5_000, 10_000, 20_000] {
            let text: String = (0..n).map(line).collect();
            let files = vec![("many.rq".to_string(), text)];
            let start = Instant::now();
            let compilation = compile(&files);
            let mut renderer = renderer(&compilation.sources, RenderOptions { color: false });
            let rendered: usize = compilation
                .diagnostics
                .iter()
                .map(|d| renderer.render(d).len())
                .sum();
            std::hint::black_box(rendered);
            let time = start.elapsed();
            per.push(time.as_secs_f64() * 1e6 / n as f64);
            println!(
                "{n:>6} {shape}: {:.0}ms, {:.1} µs each",
                time.as_secs_f64() * 1e3,
                per.last().unwrap()
            );
        }
        println!(
            "{shape}: time each at 20,000 / at 5,000: {:.2} (≈ 1 when linear)",
            per[2] / per[0]
        );
    }
}

/// Re-checking after a one-character edit inside one function of a
/// 5,000-line module, against a cold check of the same module.
fn incremental() {
    let text = generate(5_000);
    let lines = text.lines().count();
    let cold: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let analysis = Analysis::new(&[("generated.rq".to_string(), text.clone())]);
            std::hint::black_box(analysis.program());
            start.elapsed()
        })
        .collect();
    let mut analysis = Analysis::new(&[("generated.rq".to_string(), text.clone())]);
    let _ = analysis.program();
    // Alternate `take(k)` and `take(k)` with a space added, in a function
    // in the middle of the module: one character each time.
    let target = "fn helper400(xs: [T1], n: Int) = xs |> sort_by(x => x.at, desc) |> take(n)";
    assert!(
        text.contains(target),
        "the generated module has the edited function"
    );
    let edited = text.replace(target, &target.replace("|> take(n)", "|>  take(n)"));
    let mut recheck = |what: &dyn Fn(&Analysis)| -> Duration {
        let samples = (0..10)
            .map(|i| {
                analysis.set_file("generated.rq", if i % 2 == 0 { &edited } else { &text });
                let start = Instant::now();
                what(&analysis);
                start.elapsed()
            })
            .collect();
        median(samples)
    };
    // The whole program (what `rqc check` builds), and the diagnostics
    // alone (what the language server publishes after an edit).
    let warm = recheck(&|a| {
        std::hint::black_box(a.program());
    });
    let editor = recheck(&|a| {
        std::hint::black_box(a.diagnostics());
    });
    let cold = median(cold);
    println!(
        "{lines}-line module: cold check {:.1}ms, re-check after a one-character edit {:.1}ms ({:.0}× faster), its diagnostics alone (the language server's path) {:.1}ms",
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3,
        cold.as_secs_f64() / warm.as_secs_f64(),
        editor.as_secs_f64() * 1e3
    );
}
