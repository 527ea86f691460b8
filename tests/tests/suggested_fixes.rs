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
    let mut titles: Vec<String> = Vec::new();
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
                titles.push(action.title.clone());
                let mut fixed = sources.clone();
                // Each edit's span is in the unedited text: the last first.
                let mut edits = action.edits.clone();
                edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
                for edit in &edits {
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
                // A program whose shape was broken before (a syntax error
                // elsewhere, E0106) stays so; the fix may add no error of
                // its own kind to it.
                let new_errors: Vec<&str> = again
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| d.code.as_str())
                    .filter(|code| !compilation.diagnostics.iter().any(|d| d.code == *code))
                    .collect();
                if !again.checked.shape_sound
                    && (compilation.checked.shape_sound || !new_errors.is_empty())
                {
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
    // Each kind of fix is among them (each is checked above).
    for kind in [
        "Add `index ",
        "Add `bound ",
        "Add `import ",
        "Declare `aggregate ",
        "Append `|> take(100)`",
        "Append `|> first()`",
        "Read a bounded part first",
        "Declare `n: Int <= ",
        "` a small table of at most 1000 rows",
        "Read `Post.by_author[a] |> take(10)`",
    ] {
        assert!(
            titles
                .iter()
                .any(|t| t.starts_with(kind) || t.ends_with(kind)),
            "no fix `{kind}…` among {titles:#?}"
        );
    }
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

/// Applies the quick fix of `case`'s help line that contains `help` to the
/// corpus program and returns the fixed program's text of `case`, after
/// checking that the help proposes no `take` before a sort or a count and
/// that every definition of the fixed program is accepted.
fn apply_help(case: &str, query: &str, help: &str) -> String {
    let dir = repo_root().join(format!("tests/corpus/{case}"));
    let path = if dir.is_dir() {
        dir
    } else {
        repo_root().join(format!("tests/corpus/{case}.rq"))
    };
    let sources = sources_of(&path);
    let analysis = Analysis::new(&sources);
    let compilation = compile(&sources);
    let starts = format!("query {query}(");
    let (file, text) = sources
        .iter()
        .find(|(_, text)| text.lines().any(|l| l.starts_with(&starts)))
        .unwrap_or_else(|| panic!("{case}: no query `{query}`"));
    let file = file.clone();
    let line = text.lines().find(|l| l.starts_with(&starts)).unwrap();
    let at = text.find(line).unwrap() as u32;
    let diagnostic = compilation
        .diagnostics
        .iter()
        .find(|d| {
            d.primary.file == file
                && d.primary.span.start >= at
                && d.primary.span.end <= at + line.len() as u32
        })
        .unwrap_or_else(|| panic!("{case}: no diagnostic for `{query}`"));
    let helps = diagnostic.help.join("\n");
    assert!(
        !helps.contains("take(n) |> sort_by") && !helps.contains("take(n) |> count"),
        "{case}/{query}: {helps}"
    );
    let line_of_help = diagnostic
        .help
        .iter()
        .find(|h| h.contains(help))
        .unwrap_or_else(|| panic!("{case}/{query}: no help with {help:?} in\n{helps}"));
    let action = code_actions(&analysis, diagnostic)
        .into_iter()
        .find(|a| {
            let single = rqc_compiler::Diagnostic {
                help: vec![line_of_help.clone()],
                ..diagnostic.clone()
            };
            code_actions(&analysis, &single).contains(a)
        })
        .unwrap_or_else(|| panic!("{case}/{query}: `{line_of_help}` has no quick fix"));
    let mut fixed = sources.clone();
    let mut edits = action.edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    for edit in &edits {
        let (_, text) = fixed.iter_mut().find(|(n, _)| *n == edit.file).unwrap();
        text.replace_range(edit.span.start as usize..edit.span.end as usize, &edit.text);
    }
    let again = compile(&fixed);
    let verdict = again
        .checked
        .verdict(query)
        .unwrap_or_else(|| panic!("{case}/{query}: no verdict after the fix"));
    assert!(
        verdict.accepted && again.checked.shape_sound,
        "{case}/{query}: `{}` is not accepted: {:?}",
        action.title,
        again
            .diagnostics
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect::<Vec<_>>()
    );
    fixed.into_iter().find(|(n, _)| *n == file).unwrap().1
}

/// A sort reads the index already in its order; in the other order, an
/// index in the sort's direction is proposed.
#[test]
fn a_sort_help_reads_the_index_in_its_order() {
    let case = "help_sort_reads_index";
    let fixed = apply_help(case, "newest", "`Note.by_time |> take(n)`");
    assert!(
        fixed.contains("query newest(n: Int <= 50) = Note.by_time |> take(n)"),
        "{fixed}"
    );
    // A backwards sort whose ties would be reversed (E0456) reads an
    // index in the sort's direction instead.
    let fixed = apply_help(
        "stream_sort_by",
        "q",
        "add `index by_author_at (author, at)` to table `Post`",
    );
    assert!(
        fixed.contains("= Post.by_author_at[a] |> take(3)"),
        "{fixed}"
    );
    let fixed = apply_help(case, "oldest", "add `index by_at (at)` to table `Note`");
    assert!(fixed.contains("= Note.by_at |> take(n)"), "{fixed}");
}

/// A range filter reads the range of an index starting with its column,
/// or declares one.
#[test]
fn a_range_filter_help_reads_a_range_of_an_index() {
    let case = "help_filter_range_index";
    let fixed = apply_help(case, "since", "`Note.by_time[at > t] |> take(k)`");
    assert!(
        fixed.contains("= Note.by_time[at > t] |> take(10)"),
        "{fixed}"
    );
    apply_help(
        case,
        "posts_since",
        "add `index by_at (at)` to table `Post`",
    );
}

/// A count reads the maintained count, or declares one; never a count of
/// the first k rows.
#[test]
fn a_count_help_reads_a_maintained_count() {
    let case = "help_count_aggregate";
    let fixed = apply_help(case, "filtered", "`posts_of[a]`");
    assert!(
        fixed.contains("query filtered(a: Int) = posts_of[a]\n"),
        "{fixed}"
    );
    let fixed = apply_help(case, "by_prefix", "`posts_of[a]`");
    assert!(
        fixed.contains("query by_prefix(a: Int) = posts_of[a]\n"),
        "{fixed}"
    );
    let fixed = apply_help(
        case,
        "undeclared",
        "`aggregate note_count_by_at = count(Note) by at`",
    );
    assert!(fixed.contains("= note_count_by_at[t]\n"), "{fixed}");
}

/// A count kept in a module the query does not import: the fix reads it
/// and adds the import.
#[test]
fn a_count_kept_in_another_module_is_read_and_imported() {
    let fixed = apply_help("help_count_import", "posts", "`posts_by[a]`");
    assert!(
        fixed.contains("import social.{Post}\nimport tally.{posts_by}\n"),
        "{fixed}"
    );
    assert!(
        fixed.contains("query posts(a: Int) = posts_by[a]\n"),
        "{fixed}"
    );
}

/// A sum, least or greatest value of a group reads the aggregate the
/// schema keeps, or declares one; none is proposed that could not be
/// declared (a sum of a `Float`).
#[test]
fn a_sum_or_extreme_help_reads_a_kept_aggregate() {
    let case = "help_kept_extremes";
    let fixed = apply_help(
        case,
        "spent",
        "`aggregate bill_sum_total_by_customer = sum(Bill.total) by customer`",
    );
    assert!(
        fixed.contains("= bill_sum_total_by_customer[c]\n"),
        "{fixed}"
    );
    let fixed = apply_help(case, "biggest", "`aggregate bill_max_total_by_customer");
    assert!(
        fixed.contains("= bill_max_total_by_customer[c]\n"),
        "{fixed}"
    );
    let fixed = apply_help(case, "first_at", "`aggregate post_min_at_by_author");
    assert!(fixed.contains("= post_min_at_by_author[a]\n"), "{fixed}");
    let fixed = apply_help(case, "last_at", "`latest_post[a]`");
    assert!(
        fixed.contains("query last_at(a: Int) = latest_post[a]\n"),
        "{fixed}"
    );
    let path = repo_root().join(format!("tests/corpus/{case}.rq"));
    let sources = sources_of(&path);
    let at = sources.last().unwrap().1.find("query mean(").unwrap() as u32;
    let compilation = compile(&sources);
    let mean = compilation
        .diagnostics
        .iter()
        .find(|d| d.primary.file == relative(&path) && d.primary.span.start > at)
        .expect("`mean` is rejected");
    assert!(
        mean.help.len() == 1 && mean.help[0].starts_with("declare a bound"),
        "{:?}",
        mean.help
    );
}

/// A stage written as a call, `f(input, …)`, is replaced as a stage after
/// `|>` is.
#[test]
fn a_stage_written_as_a_call_is_replaced_by_its_read() {
    let case = "help_call_form";
    let fixed = apply_help(case, "at_time", "add `index by_at (at)` to table `Post`");
    assert!(
        fixed.contains("query at_time(k: Int) = Post.by_at[k] |> take(3)\n"),
        "{fixed}"
    );
    let fixed = apply_help(case, "total_at", "`aggregate post_sum_at_by_author");
    assert!(
        fixed.contains("query total_at(a: Int) = post_sum_at_by_author[a]\n"),
        "{fixed}"
    );
}
