//! The headers of diagnostics: each label's `file:line:column` above a snippet of that line (a related label in the primary's file too, on short lines and long), and every library error's `Display` starting with its `[CODE] Error:` header.

use rqc::{Database, Error};
use rqc_tests::rendered_diagnostics;

/// Every diagnostic of the program, rendered without colour.
fn rendered(files: &[(&str, &str)]) -> Vec<String> {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(name, text)| (name.to_string(), text.to_string()))
        .collect();
    rendered_diagnostics(&sources)
}

/// The diagnostic about a name defined twice.
fn twice(all: &[String]) -> &str {
    let found: Vec<&String> = all.iter().filter(|d| d.contains("E0203")).collect();
    assert_eq!(found.len(), 1, "{all:?}");
    found[0]
}

/// Each header of a rendered diagnostic: its file, line and column, and
/// the number of the first snippet row under it.
fn headers(diagnostic: &str) -> Vec<(String, usize, usize, usize)> {
    let rows: Vec<&str> = diagnostic.lines().collect();
    let mut found = Vec::new();
    for (at, row) in rows.iter().enumerate() {
        let Some(start) = row.find("─[ ").map(|s| s + "─[ ".len()) else {
            continue;
        };
        let place = &row[start..row.rfind(" ]").unwrap()];
        let mut parts = place.rsplitn(3, ':');
        let column = parts.next().unwrap().parse().unwrap();
        let line = parts.next().unwrap().parse().unwrap();
        let file = parts.next().unwrap().to_string();
        let snippet = rows[at + 1..]
            .iter()
            .find_map(|r| r.trim_start().split(" │").next()?.parse().ok())
            .unwrap_or_else(|| panic!("no snippet under {place}:\n{diagnostic}"));
        found.push((file, line, column, snippet));
    }
    found
}

/// Every header names the line of the snippet under it, and its column is
/// where `name` starts on that line of the file.
fn assert_places(diagnostic: &str, files: &[(&str, &str)], name: &str) {
    for (file, line, column, snippet) in headers(diagnostic) {
        assert_eq!(line, snippet, "{file}:{line}:{column}\n{diagnostic}");
        let text = files.iter().find(|(f, _)| *f == file).unwrap().1;
        let row = text.lines().nth(line - 1).unwrap();
        let from: String = row.chars().skip(column - 1).collect();
        assert!(
            from.starts_with(name),
            "{file}:{line}:{column}\n{diagnostic}"
        );
    }
}

#[test]
fn a_related_label_earlier_in_the_same_file_is_headed_by_its_own_line() {
    let text = "query q(a: Int) = a\nquery q(a: Int) = a\n";
    let files = [("same.rq", text)];
    let all = rendered(&files);
    let diagnostic = twice(&all);
    let places: Vec<(String, usize, usize)> = headers(diagnostic)
        .into_iter()
        .map(|(file, line, column, _)| (file, line, column))
        .collect();
    assert_eq!(
        places,
        [("same.rq".into(), 2, 7), ("same.rq".into(), 1, 7)],
        "{diagnostic}"
    );
    assert_places(diagnostic, &files, "q");
    insta::assert_snapshot!("related_label_same_file", diagnostic);
}

#[test]
fn a_related_label_earlier_on_a_long_line_of_the_same_file_is_headed_by_its_own_line() {
    let pad = " ".repeat(450);
    let text = format!("{pad}query q(a: Int) = a\nquery q(a: Int) = a {pad}\n");
    let files = [("same.rq", text.as_str())];
    let all = rendered(&files);
    let diagnostic = twice(&all);
    let places: Vec<(usize, usize)> = headers(diagnostic)
        .into_iter()
        .map(|(_, line, column, _)| (line, column))
        .collect();
    assert_eq!(places, [(2, 7), (1, 457)], "{diagnostic}");
    assert_places(diagnostic, &files, "q");
    assert!(diagnostic.len() < 1500, "{} bytes", diagnostic.len());
    insta::assert_snapshot!("related_label_same_file_long_line", diagnostic);
}

#[test]
fn related_labels_in_the_same_file_and_another_each_head_their_own_line() {
    let module = "module a\n\npub table T { id: Int key }\n";
    let user = "module b\n\ntable T { id: Int key }\n";
    for pad in [0, 450] {
        // The other file's line long or short.
        let other = format!(
            "module a\n\n{}pub table T {{ id: Int key }}\n",
            " ".repeat(pad)
        );
        for a in [module.to_string(), other] {
            let files = [("a.rq", a.as_str()), ("b.rq", user)];
            let all = rendered(&files);
            let diagnostic = all
                .iter()
                .find(|d| d.contains("declared twice"))
                .unwrap_or_else(|| panic!("{all:?}"));
            let found = headers(diagnostic);
            assert_eq!(found.len(), 2, "{diagnostic}");
            assert_places(diagnostic, &files, "T");
        }
    }
}

#[test]
fn the_librarys_compile_error_shows_each_related_label_under_its_own_line() {
    let text = "query q(a: Int) = a\nquery q(a: Int) = a\n";
    let compilation = rqc::compiler::compile(&[("same.rq".to_string(), text.to_string())]);
    let error = Error::Compile {
        diagnostics: compilation.diagnostics,
        sources: compilation.sources,
    };
    let shown = error.to_string();
    assert!(shown.starts_with("[E0203] Error: "), "{shown}");
    let places: Vec<(usize, usize)> = headers(&shown)
        .into_iter()
        .map(|(_, line, column, _)| (line, column))
        .collect();
    assert_eq!(places, [(2, 7), (1, 7)], "{shown}");
    assert_places(&shown, &[("same.rq", text)], "q");
    assert!(shown.ends_with("the program has 1 error"), "{shown}");
}

#[test]
fn every_library_error_shows_its_code_first() {
    // A compile error: its first error's code, whatever comes before it.
    let files = [(
        "bad.rq".to_string(),
        "table T { id: Int key }\nquery q(k: Int) = T[k]\nquery r() = nope\n".to_string(),
    )];
    let error = rqc::compile_installable(&files)
        .err()
        .or_else(|| {
            let compilation = rqc::compiler::compile(&files);
            Some(Error::Compile {
                diagnostics: compilation.diagnostics,
                sources: compilation.sources,
            })
        })
        .unwrap();
    let shown = error.to_string();
    assert!(
        shown.starts_with(&format!("[{}] Error: ", error.code())),
        "{shown}"
    );

    // A runtime refusal.
    let db = Database::in_memory();
    let error = db.run("nothing", &[]).unwrap_err();
    assert_eq!(error.code(), "E0514");
    let shown = error.to_string();
    assert!(shown.starts_with("[E0514] Error: "), "{shown}");
    assert_eq!(shown.lines().count(), 1, "{shown}");

    // A file that cannot be read.
    let error = rqc::read_program(&[std::path::PathBuf::from("/no/such/file.rq")]).unwrap_err();
    assert_eq!(error.code(), "E0600");
    let shown = error.to_string();
    assert!(
        shown.starts_with("[E0600] Error: /no/such/file.rq"),
        "{shown}"
    );
}
