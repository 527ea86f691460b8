//! Every fix the checker suggests as a quick fix compiles and is accepted: applied to its corpus program, the schema stays sound and the definition it was offered for is accepted.

use rqc_compiler::compile;
use rqc_compiler::db::Analysis;
use rqc_compiler::ide::code_actions;
use rqc_tests::{relative, repo_root, rq_files};

fn sources_of(path: &std::path::Path) -> Vec<(String, String)> {
    let mut sources: Vec<(String, String)> = rq_files("tests/corpus/common")
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    let files = if path.is_dir() {
        rq_files(&relative(path))
    } else {
        vec![path.to_path_buf()]
    };
    sources.extend(
        files
            .iter()
            .map(|p| (relative(p), std::fs::read_to_string(p).unwrap())),
    );
    sources
}

#[test]
fn every_quick_fix_compiles_and_is_accepted() {
    let mut applied = 0;
    let mut problems = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(repo_root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("common"))
        .collect();
    paths.sort();
    for path in paths {
        let sources = sources_of(&path);
        let analysis = Analysis::new(&sources);
        let compilation = compile(&sources);
        for diagnostic in &compilation.diagnostics {
            for action in code_actions(&analysis, diagnostic) {
                applied += 1;
                let mut fixed = sources.clone();
                for edit in &action.edits {
                    let (_, text) = fixed.iter_mut().find(|(n, _)| *n == edit.file).unwrap();
                    let range = edit.span.start as usize..edit.span.end as usize;
                    text.replace_range(range, &edit.text);
                }
                let again = compile(&fixed);
                let case = format!(
                    "{}: {} ({})",
                    relative(&path),
                    action.title,
                    diagnostic.code
                );
                if !again.checked.shape_sound {
                    let codes: Vec<&str> =
                        again.diagnostics.iter().map(|d| d.code.as_str()).collect();
                    problems.push(format!("{case}: the schema no longer compiles: {codes:?}"));
                    continue;
                }
                let still = again.diagnostics.iter().any(|d| {
                    d.primary.file == diagnostic.primary.file
                        && d.primary.span == diagnostic.primary.span
                        && d.code == diagnostic.code
                });
                if still {
                    problems.push(format!("{case}: the same diagnostic remains"));
                }
            }
        }
    }
    assert!(applied >= 5, "only {applied} quick fixes in the corpus");
    assert!(
        problems.is_empty(),
        "{applied} fixes applied; {} fail:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The help of a filter over a whole table points at the read the table
/// already offers: its key, a unique index, an index (of any direction)
/// that starts with the column; an index is suggested only when none does.
#[test]
fn a_filter_help_names_the_access_the_table_already_has() {
    let social =
        std::fs::read_to_string(repo_root().join("tests/corpus/common/social.rq")).unwrap();
    let help = |query: &str| {
        let program = format!("import social.{{User, Follow, Post, Country}}\n{query}");
        let compilation = compile(&[
            ("social.rq".to_string(), social.clone()),
            ("q.rq".to_string(), program),
        ]);
        compilation
            .diagnostics
            .iter()
            .filter(|d| d.code == "E0301")
            .flat_map(|d| d.help.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let by_key = help("query q(u: Int) = User |> filter(v => v.id == u)");
    assert!(
        by_key.contains("`User[u]`") && !by_key.contains("add `index"),
        "{by_key}"
    );
    let by_unique = help("query q(h: String) = User |> filter(v => v.handle == h)");
    assert!(
        by_unique.contains("`User.handle[h]`") && !by_unique.contains("add `index"),
        "{by_unique}"
    );
    let by_desc = help("query q(a: Int) = Post |> filter(p => p.author == a)");
    assert!(
        by_desc.contains("`Post.by_author[a] |> take(k)`") && !by_desc.contains("add `index"),
        "{by_desc}"
    );
    let new_index = help("query q(b: String) = Post |> filter(p => p.body == b)");
    assert!(
        new_index.contains("add `index by_body (body)` to table `Post`"),
        "{new_index}"
    );
}
