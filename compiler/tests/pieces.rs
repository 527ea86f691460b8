//! Parsing a file piece by piece gives what parsing it whole gives: the
//! same items at the same places, the same syntax diagnostics, and each
//! definition the syntax of its own text; and after any edit, the
//! incremental analysis says what a fresh one says.

use rqc_compiler::check::DEF_MARKER;
use rqc_compiler::db::{def_syntax, skeleton, Analysis, DefKey};
use rqc_compiler::syntax::ast::Item;
use rqc_compiler::syntax::parse;
use std::path::{Path, PathBuf};

/// Every `.rq` file of the corpus, the syntax-error cases, the examples and
/// the standard library.
fn programs() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut dirs = vec![
        root.join("tests/corpus"),
        root.join("tests/syntax-errors"),
        root.join("examples"),
        root.join("stdlib"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rq") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path, text));
            }
        }
    }
    out.sort();
    out
}

/// The skeleton's items are the whole parse's (definitions by their
/// place and name), its diagnostics the whole parse's, and each
/// definition's syntax that of its own text parsed alone.
fn assert_pieces_match_the_whole(name: &str, text: &str) {
    let (whole, diagnostics) = parse(name, text);
    let analysis = Analysis::new(&[(name.to_string(), text.to_string())]);
    let file = *analysis
        .workspace
        .files(&analysis.db)
        .iter()
        .find(|f| f.name(&analysis.db) == name)
        .unwrap();
    let skeleton = skeleton(&analysis.db, file);
    assert_eq!(skeleton.diagnostics, diagnostics, "{name}: diagnostics");
    assert_eq!(skeleton.module.header, whole.header, "{name}: header");
    assert_eq!(
        skeleton.module.items.len(),
        whole.items.len(),
        "{name}: items"
    );
    for (piece, item) in skeleton.module.items.iter().zip(&whole.items) {
        match (piece, item) {
            (Item::Def(a), Item::Def(b)) => assert_eq!(
                (&a.name, a.span, a.kind, a.public),
                (&b.name, b.span, b.kind, b.public),
                "{name}"
            ),
            (a, b) => assert_eq!(a, b, "{name}"),
        }
    }
    let shape = analysis.shape();
    for info in &shape.index.defs {
        let module = &shape.index.modules[info.module];
        if module.file != name {
            continue;
        }
        let Item::Def(def) = &whole.items[info.item] else {
            panic!("{name}: item {} is a definition", info.item);
        };
        let (alone, _) = parse(DEF_MARKER, &text[def.span.range()]);
        let expected = alone.items.iter().find_map(|i| match i {
            Item::Def(d) => Some(d),
            _ => None,
        });
        let key = DefKey::new(&analysis.db, module.name.clone(), info.name.clone());
        assert_eq!(
            def_syntax(&analysis.db, analysis.workspace, key).def(),
            expected,
            "{name}: the syntax of `{}`",
            info.name
        );
    }
}

#[test]
fn pieces_parse_as_the_whole_file() {
    let programs = programs();
    assert!(programs.len() > 150, "found {} programs", programs.len());
    for (path, text) in &programs {
        assert_pieces_match_the_whole(&path.display().to_string(), text);
    }
}

/// A definition indented, or after a tab or a CRLF, starts no piece: it
/// shares one with what comes before, and its syntax and diagnostics are
/// still its own, at their places (its spans were read from the piece's
/// start and drawn past the name they point at).
#[test]
fn indented_definitions_keep_their_places() {
    for text in [
        "module m0\n   pub query q(a: Int) = T[a].nme\n",
        "module m0\n\ntable T { id: Int key }\n\t pub query q(a: Int) = T[a].nme\r\n",
        "module m0\n\nfn f(x: Int) = x\n  fn g(y: Int) = f(y) + zz\n",
    ] {
        assert_pieces_match_the_whole("indented.rq", text);
        let compilation = rqc_compiler::compile(&[("indented.rq".to_string(), text.to_string())]);
        let d = &compilation.diagnostics[0];
        let pointed = &text[d.primary.span.range()];
        assert!(
            ["T", "nme", "zz"].contains(&pointed),
            "{pointed:?} in {text:?}"
        );
    }
}

/// Edits that break and mend pieces: a character removed or added at many
/// places, a line joined to the previous one, a keyword put at a line's
/// start. Each edited text is compared whole against pieces, and the
/// incremental analysis (edited step by step) against a fresh one.
#[test]
fn after_edits_the_incremental_analysis_is_a_fresh_one() {
    let mut edits_seen = 0;
    for (path, text) in programs().iter().step_by(3) {
        let name = path.display().to_string();
        let mut analysis = Analysis::new(&[(name.clone(), text.clone())]);
        let _ = analysis.diagnostics();
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let step = (boundaries.len() / 12).max(1);
        for (k, &at) in boundaries.iter().step_by(step).enumerate() {
            let mut edited = text.clone();
            match k % 4 {
                0 if at < text.len() => {
                    let len = text[at..].chars().next().unwrap().len_utf8();
                    edited.replace_range(at..at + len, "");
                }
                1 => edited.insert(at, '('),
                2 => edited.insert_str(at, "\npub "),
                _ => match text[at..].find('\n') {
                    Some(newline) => edited.replace_range(at + newline..at + newline + 1, " "),
                    None => edited.push_str("\nfn"),
                },
            }
            assert_pieces_match_the_whole(&name, &edited);
            analysis.set_file(&name, &edited);
            let fresh = Analysis::new(&[(name.clone(), edited.clone())]);
            let editor = analysis.diagnostics();
            assert_eq!(editor, fresh.diagnostics(), "{name} after edit {k} at {at}");
            assert_eq!(
                editor,
                analysis.program().0.diagnostics,
                "{name} after edit {k} at {at}: the editor's are the whole program's"
            );
            edits_seen += 1;
        }
        // And back: the first text again, as an editor's undo would.
        analysis.set_file(&name, text);
        let fresh = Analysis::new(&[(name.clone(), text.clone())]);
        assert_eq!(analysis.diagnostics(), fresh.diagnostics(), "{name} undone");
    }
    assert!(edits_seen > 500, "{edits_seen} edits");
}
