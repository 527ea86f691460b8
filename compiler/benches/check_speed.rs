//! How fast `check` is: lines per second on generated modules of 1,250 to
//! 10,000 lines, and whether the time per line stays flat as modules grow
//! (it would grow with the size if anything were quadratic); the memory a
//! one-line query takes; re-checking after an edit; many diagnostics; many
//! small files; programs wide in one thing (`wide`: thousands of tables,
//! columns, parameters, misspellings, or one very long line).
//!
//! The cold check times what `rqc check` runs, [`compile_for_exit`]: the
//! compilation with its verdicts and diagnostics, whose analysis and
//! results the command never frees (its process exits), so neither does
//! the timed step. The command also verifies each accepted plan with the
//! runtime's verifier (`rqc::install::InstallCheck`), which this crate
//! cannot import: that part is in the figure of `rqc check` itself, timed
//! next on the same file (reading, printing and exit included).
//!
//! Run with `cargo bench -p rqc-compiler --bench check_speed`. `rqc check`
//! and the language server are timed when an `rqc` binary is found:
//! `$RQC_BIN`, else `rqc` beside the benchmark's directory (build it first
//! with `cargo build --release -p rqc-cli`).

/// The allocator the `rqc` binary uses (`cli/src/main.rs`), so that the
/// figures are the command's and the language server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use rqc_compiler::db::Analysis;
use rqc_compiler::{compile, compile_for_exit};
use std::time::{Duration, Instant};

#[path = "check_speed/wide.rs"]
mod wide;

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
    // Counted as they are added (the text ends each line with `\n`):
    // counting the whole text after each definition would be quadratic.
    let mut count = out.matches('\n').count();
    let mut d = 0;
    while count < lines {
        let t = d % tables;
        let u = (d + 1) % tables;
        let definition = format!(
            "// definition {d}\nfn helper{d}(xs: [T{u}], n: Int) = xs |> sort_by(x => x.at, desc) |> take(n)\npub query q{d}(o: Int, k: Int <= 50) =\n  T{t}.by_owner[o] |> map(r => T{u}[r.key2]) |> flatten() |> helper{d}(k)\nmutation m{d}(id: Int, o: Int, at: Int, name: String) =\n  insert T{t} {{ id: id, owner: o, at: at, name: name, key2: 0 }}\n\n"
        );
        count += definition.matches('\n').count();
        out.push_str(&definition);
        d += 1;
    }
    debug_assert_eq!(count, out.lines().count());
    out
}

/// CPU time (user and system) a process has used so far, from
/// `/proc/PID/stat` (Linux; in ticks of 10 ms): what an edit costs whatever
/// else the machine runs, where wall time counts the waits for a core.
fn cpu_time(pid: Option<u32>) -> Option<Duration> {
    stat_ticks(pid, 11)
}

/// CPU time (user and system) of this process's children that have ended
/// and been waited for.
fn children_cpu_time() -> Option<Duration> {
    stat_ticks(None, 13)
}

/// The sum of the two tick counts from field `first` on (counted from the
/// process's state, field 3 of `/proc/PID/stat`).
fn stat_ticks(pid: Option<u32>, first: usize) -> Option<Duration> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/stat"),
        None => "/proc/self/stat".to_string(),
    };
    let stat = std::fs::read_to_string(path).ok()?;
    // The fields after the command (which may hold spaces), from field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 =
        fields.get(first)?.parse::<u64>().ok()? + fields.get(first + 1)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The median of three timed runs of `run`.
fn median_of_three(mut run: impl FnMut()) -> Duration {
    median(
        (0..3)
            .map(|_| {
                let start = Instant::now();
                run();
                start.elapsed()
            })
            .collect(),
    )
}

/// Checks `files` and renders their diagnostics, as `rqc check` does.
fn check_and_render(files: &[(String, String)]) {
    use rqc_compiler::diagnostics::{renderer, RenderOptions};
    let compilation = compile(files);
    let mut renderer = renderer(&compilation.sources, RenderOptions { color: false });
    let rendered: usize = compilation
        .diagnostics
        .iter()
        .map(|d| renderer.render(d).len())
        .sum();
    std::hint::black_box(rendered);
}

/// Times `shape` at each of `sizes` (`time_of` a size), printed per item,
/// then the time per item at the largest size over that at the smallest:
/// ≈ 1 when the time grows linearly with the size.
fn scaling(shape: &str, sizes: &[usize], mut time_of: impl FnMut(usize) -> Duration) {
    let mut per = Vec::new();
    for &n in sizes {
        let time = time_of(n);
        per.push(time.as_secs_f64() * 1e6 / n as f64);
        println!(
            "{n:>6} {shape}: {:.0}ms, {:.1} µs each",
            time.as_secs_f64() * 1e3,
            per.last().unwrap()
        );
    }
    println!(
        "{shape}: time each at {} / at {}: {:.2} (≈ 1 when linear)",
        sizes[sizes.len() - 1],
        sizes[0],
        per[per.len() - 1] / per[0]
    );
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
    // Sections to run (all when none is named): memory, cold, edit, stdio, many, files, wide.
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |section: &str| named.is_empty() || named.iter().any(|n| n == section);
    if run("memory") {
        memory_per_query();
    }
    if run("cold") {
        // On the deep-stack thread, as `rqc check` compiles (`cli/src/main.rs`).
        rqc_compiler::stack::with_deep_stack(cold_check);
    }
    if run("edit") {
        incremental();
    }
    if named.iter().any(|n| n == "profile") {
        profile_edits();
    }
    if run("stdio") {
        lsp_over_stdio();
    }
    if run("many") {
        many_diagnostics();
    }
    if run("files") {
        rqc_compiler::stack::with_deep_stack(many_files);
    }
    if run("wide") {
        rqc_compiler::stack::with_deep_stack(wide::wide);
    }
}

/// A cold check of a program of many small files (a module each, every
/// one importing a table from the first): time per file at 8,000 files
/// against 1,000, ≈ 1 when the check grows linearly with files.
fn many_files() {
    scaling("files", &[1_000, 2_000, 4_000, 8_000], |count| {
        let files: Vec<(String, String)> = (0..count)
            .map(|m| {
                let mut text = format!("module m{m}\n\n");
                if m == 0 {
                    text.push_str("pub table T {\n  id: Int key\n  owner: Int\n  index by_owner (owner)\n  bound owner <= 100\n}\n\n");
                } else {
                    text.push_str("import m0.{T}\n\n");
                }
                for q in 0..3 {
                    text.push_str(&format!("pub query q{q}(o: Int) = T.by_owner[o]\n\n"));
                }
                (format!("m{m}.rq"), text)
            })
            .collect();
        let first = compile_for_exit(&files, None);
        assert!(
            first.diagnostics.is_empty(),
            "the generated files check clean: {:?}",
            first.diagnostics.first()
        );
        median_of_three(|| {
            std::hint::black_box(compile_for_exit(&files, None));
        })
    });
}

/// A cold check on one thread, then over the cores (`RQC_THREADS` unset:
/// `compiler/src/db/parallel.rs`); only the setting `RQC_THREADS` names
/// when it is set.
fn cold_check() {
    let settings: Vec<Option<String>> = match std::env::var("RQC_THREADS") {
        Ok(threads) => vec![Some(threads)],
        Err(_) => vec![Some("1".to_string()), None],
    };
    for setting in settings {
        // Set while no other thread runs (the compilations' are joined).
        match &setting {
            Some(threads) => {
                std::env::set_var("RQC_THREADS", threads);
                println!("RQC_THREADS={threads}:");
            }
            None => {
                std::env::remove_var("RQC_THREADS");
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                println!("over the cores ({cores}):");
            }
        }
        cold_check_sizes();
    }
}

/// Lines per second of a cold check, at 1,250 to 10,000 lines.
fn cold_check_sizes() {
    println!(
        "{:>8} {:>12} {:>14} {:>16} {:>16}",
        "lines", "median", "lines/s", "µs per line", "lines/s of CPU"
    );
    let mut per_line = Vec::new();
    let mut cpu_speed = f64::NAN;
    // `CHECK_SPEED_LINES=10000` checks that size alone (for a profiler).
    let only: Option<usize> = std::env::var("CHECK_SPEED_LINES")
        .ok()
        .map(|v| v.parse().expect("CHECK_SPEED_LINES is a number of lines"));
    let sizes = [1_250, 2_500, 5_000, 10_000];
    for lines in sizes.into_iter().filter(|l| only.is_none_or(|o| o == *l)) {
        let text = generate(lines);
        let actual = text.lines().count();
        let files = vec![("generated.rq".to_string(), text)];
        let first = compile_for_exit(&files, None);
        assert!(
            first.diagnostics.is_empty(),
            "the generated module checks clean: {:?}",
            first.diagnostics.first()
        );
        let cpu = cpu_time(None);
        let samples: Vec<Duration> = (0..7)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(compile_for_exit(&files, None));
                start.elapsed()
            })
            .collect();
        // Lines per second of CPU time: what a core gives when it is not
        // shared (wall time on a loaded machine counts the waits).
        cpu_speed = cpu.zip(cpu_time(None)).map_or(f64::NAN, |(a, b)| {
            actual as f64 * 7.0 / (b - a).as_secs_f64()
        });
        let time = median(samples);
        let micros = time.as_secs_f64() * 1e6 / actual as f64;
        per_line.push(micros);
        println!(
            "{actual:>8} {:>10.1}ms {:>14.0} {micros:>16.2} {cpu_speed:>16.0}",
            time.as_secs_f64() * 1e3,
            actual as f64 / time.as_secs_f64()
        );
    }
    if per_line.len() == sizes.len() {
        println!(
            "time per line at 10,000 lines / at 1,250 lines: {:.2} (≈ 1 when checking is linear)",
            per_line[3] / per_line[0]
        );
    }
    let speed = 1e6 / per_line[per_line.len() - 1];
    let last_size = sizes
        .into_iter()
        .rfind(|l| only.is_none_or(|o| o == *l))
        .expect("a size to check");
    println!(
        "cold check at {last_size} lines: {speed:.0} lines/s, {cpu_speed:.0} lines per second of CPU (goal ≥ 100,000: {})",
        if speed >= 100_000.0 { "met" } else { "not met" }
    );
    rqc_check_command(last_size);
}

/// `rqc check` itself on a generated module of `lines` lines, its output
/// thrown away: the whole command, as a user runs it.
fn rqc_check_command(lines: usize) {
    use std::process::{Command, Stdio};
    let Some(binary) = rqc_binary() else {
        println!("rqc check: skipped (no `rqc` binary: set RQC_BIN or `cargo build --release -p rqc-cli`)");
        return;
    };
    let text = generate(lines);
    let actual = text.lines().count();
    let path = std::env::temp_dir().join(format!("check_speed_{}.rq", std::process::id()));
    std::fs::write(&path, &text).expect("the generated module is written");
    let runs = 7;
    let cpu = children_cpu_time();
    let samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let status = Command::new(&binary)
                .arg("check")
                .arg(&path)
                .stdout(Stdio::null())
                .status()
                .expect("rqc check runs");
            assert!(status.success(), "rqc check accepts the generated module");
            start.elapsed()
        })
        .collect();
    let cpu = cpu.zip(children_cpu_time()).map(|(a, b)| b - a);
    std::fs::remove_file(&path).expect("the generated module is removed");
    let time = median(samples);
    println!(
        "rqc check ({actual}-line module, output discarded): {:.1}ms, {:.0} lines/s, {} lines per second of CPU",
        time.as_secs_f64() * 1e3,
        actual as f64 / time.as_secs_f64(),
        cpu.map_or("unknown".to_string(), |cpu| format!(
            "{:.0}",
            actual as f64 * runs as f64 / cpu.as_secs_f64()
        ))
    );
}

/// Checking and rendering 5,000 to 20,000 diagnostics (syntax errors, and
/// definitions repeated): the time per diagnostic stays flat when
/// rendering indexes the sources once.
fn many_diagnostics() {
    type Line = fn(usize) -> String;
    let shapes: [(&str, Line); 3] = [
        ("syntax errors", |i| format!("query q{i}(a: Int) = )\n")),
        ("repeated definitions", |_| {
            "query q(a: Int) = a\n".to_string()
        }),
        // Each misspelling is compared with every name of the module for
        // its "did you mean" help.
        ("unknown names", |i| {
            format!("query q{i}(a: Int) = nope{i}\n")
        }),
    ];
    for (shape, line) in shapes {
        scaling(shape, &[5_000, 10_000, 20_000], |n| {
            let text: String = (0..n).map(line).collect();
            let files = vec![("many.rq".to_string(), text)];
            let start = Instant::now();
            check_and_render(&files);
            start.elapsed()
        });
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
    // CPU time per edit over 100 edits, the diagnostics path alone.
    let before = cpu_time(None);
    for i in 0..100 {
        analysis.set_file("generated.rq", if i % 2 == 0 { &edited } else { &text });
        std::hint::black_box(analysis.diagnostics());
    }
    let editor_cpu = before
        .zip(cpu_time(None))
        .map(|(before, after)| (after - before) / 100);
    let cold = median(cold);
    println!(
        "{lines}-line module: cold check {:.1}ms, re-check after a one-character edit {:.1}ms ({:.0}× faster), its diagnostics alone (the language server's path) {:.1}ms, {} of CPU (goal < 10ms: {})",
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3,
        cold.as_secs_f64() / warm.as_secs_f64(),
        editor.as_secs_f64() * 1e3,
        editor_cpu.map_or("unknown".to_string(), |cpu| format!("{:.1}ms", cpu.as_secs_f64() * 1e3)),
        if editor < Duration::from_millis(10) { "met" } else { "not met" }
    );
}

/// The `rqc` binary to time over stdio, if there is one.
fn rqc_binary() -> Option<std::path::PathBuf> {
    if let Some(bin) = std::env::var_os("RQC_BIN") {
        return Some(bin.into());
    }
    // The benchmark runs from `target/release/deps/`.
    let exe = std::env::current_exe().ok()?;
    let candidate = exe.parent()?.parent()?.join("rqc");
    candidate.exists().then_some(candidate)
}

/// A one-character edit sent to `rqc lsp` as an editor sends it (an
/// incremental `didChange`), until its `publishDiagnostics` is read back:
/// the whole round, JSON and pipes included. The module has one rejected
/// query at its end, so that every edit publishes a diagnostic.
fn lsp_over_stdio() {
    use serde_json::{json, Value};
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    let Some(binary) = rqc_binary() else {
        println!("LSP over stdio: skipped (no `rqc` binary: set RQC_BIN or `cargo build --release -p rqc-cli`)");
        return;
    };
    let mut text = generate(5_000);
    text.push_str("query broken(o: Int) = o + \"one\"\n");
    let lines = text.lines().count();
    let mut child = Command::new(&binary)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("rqc lsp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |message: Value| {
        let body = message.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    };
    let mut receive = || -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).expect("read") > 0,
                "the server hung up"
            );
            let line = line.trim();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        stdout.read_exact(&mut body).expect("body");
        serde_json::from_slice(&body).expect("json")
    };
    let uri = "file:///bench/generated.rq";
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    while receive().get("id") != Some(&json!(1)) {}
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let published = |receive: &mut dyn FnMut() -> Value| loop {
        let message = receive();
        if message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
        {
            return message["params"]["diagnostics"]
                .as_array()
                .map_or(0, Vec::len);
        }
    };
    let start = Instant::now();
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "rql", "version": 1, "text": text}}}),
    );
    let count = published(&mut receive);
    let open = start.elapsed();
    assert_eq!(count, 1, "the module has one diagnostic");
    // Insert a space before `take(n)` in helper400, then take it out.
    let target = "fn helper400(xs: [T1], n: Int) = xs |> sort_by(x => x.at, desc) |> take(n)";
    let offset =
        text.find(target).expect("the edited function") + target.find("take(n)").expect("take");
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let server_cpu = cpu_time(Some(child.id()));
    let samples: Vec<Duration> = (0..60)
        .map(|i| {
            let change = if i % 2 == 0 {
                json!({"range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column}}, "text": " "})
            } else {
                json!({"range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column + 1}}, "text": ""})
            };
            let start = Instant::now();
            send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [change]}}));
            assert_eq!(published(&mut receive), 1);
            start.elapsed()
        })
        .collect();
    let server_cpu = server_cpu
        .zip(cpu_time(Some(child.id())))
        .map(|(before, after)| (after - before) / 60);
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}));
    while receive().get("id") != Some(&json!(2)) {}
    send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let _ = child.wait();
    let edit = median(samples);
    println!(
        "LSP over stdio ({lines}-line module): opened with diagnostics in {:.1}ms; one-character edit to fresh diagnostics {:.1}ms, the server's CPU {} (goal < 10ms: {})",
        open.as_secs_f64() * 1e3,
        edit.as_secs_f64() * 1e3,
        server_cpu.map_or("unknown".to_string(), |cpu| format!("{:.1}ms", cpu.as_secs_f64() * 1e3)),
        if edit < Duration::from_millis(10) { "met" } else { "not met" }
    );
}

/// For `perf`: 200 one-character edits of the 5,000-line module, each
/// followed by the language server's diagnostics, and nothing else.
fn profile_edits() {
    let text = generate(5_000);
    let mut analysis = Analysis::new(&[("generated.rq".to_string(), text.clone())]);
    let _ = analysis.diagnostics();
    let edited = text.replacen("|> take(n)", "|>  take(n)", 401);
    let edited = edited.replacen("|>  take(n)", "|> take(n)", 400);
    let start = Instant::now();
    let cpu = cpu_time(None);
    for i in 0..200 {
        analysis.set_file("generated.rq", if i % 2 == 0 { &edited } else { &text });
        std::hint::black_box(analysis.diagnostics());
    }
    println!(
        "{:.2}ms per edit, {:.2}ms of CPU",
        start.elapsed().as_secs_f64() * 1e3 / 200.0,
        cpu.zip(cpu_time(None))
            .map_or(f64::NAN, |(a, b)| (b - a).as_secs_f64() * 1e3 / 200.0)
    );
}
