//! Diagnostics on very long lines (generated or minified sources) draw the text around their labels, not the whole line, and still give the file's lines and columns.

use rqc_tests::rendered_diagnostics;

/// The text of every diagnostic of the program, rendered without colour.
fn rendered(files: &[(&str, String)]) -> Vec<String> {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(name, text)| (name.to_string(), text.clone()))
        .collect();
    rendered_diagnostics(&sources)
}

fn table_file() -> (&'static str, String) {
    (
        "a.rq",
        "module a\n\npub table T { id: Int key }\n".to_string(),
    )
}

#[test]
fn each_unknown_import_on_one_long_line_draws_a_short_snippet_at_its_place() {
    let names: Vec<String> = (0..3000).map(|i| format!("x{i}")).collect();
    let line = format!("import a.{{{}}}", names.join(", "));
    let text = format!("module b\n{}{line}\n", "\n".repeat(120));
    let all = rendered(&[table_file(), ("b.rq", text.clone())]);
    assert_eq!(all.len(), names.len());
    for (name, diagnostic) in names.iter().zip(&all) {
        // Where the name is: line 122, its column in characters.
        // As the name is written: first, inside or last in the braces.
        let written = [
            format!("{{{name},"),
            format!(" {name},"),
            format!(" {name}}}"),
        ];
        let column = written.iter().find_map(|w| line.find(w.as_str())).unwrap() + 2;
        assert!(
            diagnostic.contains(&format!("╭─[ b.rq:122:{column} ]")),
            "{diagnostic}"
        );
        assert!(diagnostic.contains("\n 122 │ "), "{diagnostic}");
        assert!(
            written.iter().any(|w| diagnostic.contains(w.as_str())),
            "{diagnostic}"
        );
        // A few hundred bytes, where the whole line is 20,000.
        assert!(diagnostic.len() < 1200, "{} bytes", diagnostic.len());
    }
    insta::assert_snapshot!("long_line_first", all[0]);
    insta::assert_snapshot!("long_line_middle", all[1500]);
}

#[test]
fn a_long_line_and_a_short_one_in_another_file_each_keep_their_own_numbers() {
    let tables: Vec<String> = (0..200)
        .map(|i| format!("table X{i} {{ id: Int key }}"))
        .collect();
    let line = format!("{} table T {{ id: Int key }}", tables.join(" "));
    let text = format!("module b\n\n{line}\n");
    let all = rendered(&[table_file(), ("b.rq", text)]);
    let twice: Vec<&String> = all
        .iter()
        .filter(|d| d.contains("declared twice"))
        .collect();
    assert_eq!(twice.len(), 1, "{all:?}");
    let column = line.find("table T").unwrap() + 7;
    let diagnostic = twice[0];
    assert!(
        diagnostic.contains(&format!("b.rq:3:{column}")),
        "{diagnostic}"
    );
    assert!(diagnostic.contains("a.rq:3:"), "{diagnostic}");
    assert!(diagnostic.contains("\n 3 │ pub table T"), "{diagnostic}");
    assert!(diagnostic.len() < 1500, "{} bytes", diagnostic.len());
    insta::assert_snapshot!("long_line_two_files", diagnostic);
}

#[test]
fn lines_of_ordinary_length_are_drawn_whole() {
    let text = "module b\n\nquery q() = nope_nope_nope\n".to_string();
    let all = rendered(&[("b.rq", text)]);
    assert!(
        all[0].contains("\n 3 │ query q() = nope_nope_nope\n"),
        "{}",
        all[0]
    );
}

/// The `file:line:column` of each header of a rendered diagnostic.
fn headers(diagnostic: &str) -> Vec<String> {
    diagnostic
        .lines()
        .filter_map(|row| {
            let start = row.find("─[ ")? + "─[ ".len();
            let end = row.rfind(" ]")?;
            Some(row[start..end].to_string())
        })
        .collect()
}

#[test]
fn the_other_file_of_a_diagnostic_keeps_its_columns_whatever_its_characters() {
    // The long line in `b.rq`, the first declaration after wide characters
    // in `a.rq` (ariadne counting bytes took that place in characters).
    let a = "module a\npub query z() = \"中中中中中\" table T { id: Int key }\n";
    let b = format!("module b\n{}table T {{ id: Int key }}\n", " ".repeat(400));
    let all = rendered(&[("a.rq", a.to_string()), ("b.rq", b.clone())]);
    let twice: Vec<&String> = all
        .iter()
        .filter(|d| d.contains("declared twice"))
        .collect();
    assert_eq!(twice.len(), 1, "{all:?}");
    let a_column = a
        .lines()
        .nth(1)
        .unwrap()
        .chars()
        .position(|c| c == 'T')
        .unwrap()
        + 1;
    assert_eq!(
        headers(twice[0]),
        [format!("b.rq:2:{}", 400 + 7), format!("a.rq:2:{a_column}")],
        "{}",
        twice[0]
    );

    // The long line in the other file, after the primary one's.
    let a = format!("module a\n{}table T {{ id: Int key }}\n", " ".repeat(450));
    let b = "module b\ntable T { id: Int key }\n".to_string();
    let all = rendered(&[("a.rq", a), ("b.rq", b)]);
    let twice: Vec<&String> = all
        .iter()
        .filter(|d| d.contains("declared twice"))
        .collect();
    let files = headers(twice[0]);
    assert!(
        files.contains(&format!("a.rq:2:{}", 450 + 7)),
        "{}",
        twice[0]
    );
}

#[test]
fn a_label_at_the_end_of_a_long_last_line_has_the_files_column() {
    let line = format!("pub query q(a: Int) = {}T[a] |>", " ".repeat(450));
    for ending in ["", "\n"] {
        let text = format!("module m\ntable T {{ id: Int key }}\n{line}{ending}");
        let all = rendered(&[("eof.rq", text)]);
        let at_end = all
            .iter()
            .find(|d| d.contains("E0102"))
            .unwrap_or_else(|| panic!("{all:?}"));
        // On the last character, as ariadne draws a label past the end.
        let column = line.chars().count() + ending.len();
        assert_eq!(headers(at_end), [format!("eof.rq:3:{column}")], "{at_end}");
        assert!(at_end.len() < 1000, "{at_end}");
    }
}
