//! Tests of the lexer: tokens, spans, escapes, and each lexical error with its code.

use super::*;

fn kinds(src: &str) -> Vec<Token> {
    let (tokens, diagnostics) = lex("t.rq", src);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    tokens.into_iter().map(|(_, t, _)| t).collect()
}

fn codes(src: &str) -> Vec<String> {
    lex("t.rq", src).1.into_iter().map(|d| d.code).collect()
}

#[test]
fn numbers_with_separators_floats_and_exponents() {
    assert_eq!(
        kinds("1_000 3.5 2e3 0.25e-1"),
        vec![
            Token::Int(1000),
            Token::Float(3.5),
            Token::Float(2000.0),
            Token::Float(0.025)
        ]
    );
}

/// 9223372036854775808 is the magnitude of the least `Int`: after a `-` it
/// is `IntMin`, which the grammar takes only negated; anywhere else it is
/// too large (E0004), as 9223372036854775809 is even after a `-`.
#[test]
fn the_least_int_is_a_negated_literal() {
    assert_eq!(
        kinds("-9223372036854775808 - 9_223_372_036_854_775_808"),
        vec![Token::Minus, Token::IntMin, Token::Minus, Token::IntMin]
    );
    assert_eq!(codes("9223372036854775808"), vec!["E0004"]);
    assert_eq!(codes("-= 9223372036854775808"), vec!["E0004"]);
    assert_eq!(codes("-9223372036854775809"), vec!["E0004"]);
    assert_eq!(codes("-(9223372036854775808)"), vec!["E0004"]);
}

#[test]
fn range_is_not_a_float() {
    assert_eq!(
        kinds("1..5"),
        vec![Token::Int(1), Token::DotDot, Token::Int(5)]
    );
}

#[test]
fn multi_character_operators_win_over_their_prefixes() {
    assert_eq!(
        kinds("|> => -> <= >= == != .. && || < > = ! ? += -= + -"),
        vec![
            Token::Pipe,
            Token::FatArrow,
            Token::Arrow,
            Token::LtEq,
            Token::GtEq,
            Token::EqEq,
            Token::NotEq,
            Token::DotDot,
            Token::AndAnd,
            Token::OrOr,
            Token::Lt,
            Token::Gt,
            Token::Eq,
            Token::Bang,
            Token::Question,
            Token::PlusEq,
            Token::MinusEq,
            Token::Plus,
            Token::Minus
        ]
    );
    // A default's sign is not a step: `=-` is `=` then `-`.
    assert_eq!(kinds("=-5"), vec![Token::Eq, Token::Minus, Token::Int(5)]);
}

#[test]
fn keywords_are_not_identifiers_but_prefixed_names_are() {
    assert_eq!(
        kinds("table tables key keys upsert upserts as ask"),
        vec![
            Token::Table,
            Token::Ident("tables".into()),
            Token::Key,
            Token::Ident("keys".into()),
            Token::Upsert,
            Token::Ident("upserts".into()),
            Token::As,
            Token::Ident("ask".into())
        ]
    );
}

#[test]
fn strings_unescape_and_comments_vanish() {
    assert_eq!(
        kinds(r#""a\"b\n\u{e9}" // note"#),
        vec![Token::Str("a\"b\né".into())]
    );
}

#[test]
fn a_byte_order_mark_opening_a_file_is_skipped() {
    let (tokens, diagnostics) = lex("f.rq", "\u{feff}table T");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(tokens[0], (3, Token::Table, 8), "spans count the mark");
    assert_eq!(tokens.len(), 2);
    // Anywhere else it is a stray character, as before.
    let (_, diagnostics) = lex("f.rq", "table \u{feff}T");
    assert_eq!(diagnostics.len(), 1);
}

#[test]
fn escape_round_trips() {
    let text = "tab\tquote\"back\\slash\nnul\0bell\u{7}";
    assert_eq!(unescape(&escape(text)).unwrap(), text);
}

#[test]
fn lexical_errors_have_codes_and_the_lexer_goes_on() {
    assert_eq!(codes("a # b"), vec!["E0001"]);
    assert_eq!(codes("\"open\nx"), vec!["E0002"]);
    assert_eq!(codes(r#""bad \q""#), vec!["E0003"]);
    assert_eq!(codes("99999999999999999999"), vec!["E0004"]);
    assert_eq!(codes("1e999999"), vec!["E0006"]);
    assert_eq!(codes("1_000.5e308"), vec!["E0006"]);
    assert!(codes("1.7976931348623157e308").is_empty(), "f64::MAX");
    assert!(codes("1e-999999").is_empty(), "underflow is zero");
    let (tokens, _) = lex("t.rq", "a # b");
    assert_eq!(
        tokens.len(),
        2,
        "both identifiers survive the bad character"
    );
}

#[test]
fn identifiers_are_unicode_and_nfc_normalised() {
    // `Café` written precomposed and with a combining acute accent.
    let composed = kinds("table Café Cafe\u{301} naïve Δx _é1");
    let names: Vec<&str> = composed
        .iter()
        .filter_map(|t| match t {
            Token::Ident(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["Café", "Café", "naïve", "Δx", "_é1"]);
    assert_eq!(names[1].len(), "Caf\u{e9}".len(), "the composed form");
    assert!(codes("table Café").is_empty());
    // Not letters: refused alone, the name around them kept whole.
    assert_eq!(codes("a ⊕ b"), ["E0001"]);
    assert_eq!(codes("\u{301}x"), ["E0001"]);
}

/// A name past 255 bytes (NFC) is E0010, read on as its first 255 bytes of
/// whole characters: no plan holds a name its verifier refuses.
#[test]
fn names_are_at_most_255_bytes() {
    let longest = "a".repeat(255);
    assert!(codes(&longest).is_empty());
    assert_eq!(kinds(&longest), vec![Token::Ident(longest.clone())]);
    let long = "a".repeat(256);
    assert_eq!(codes(&long), vec!["E0010"]);
    // Two-byte characters: 128 of them are 256 bytes, cut to 127 (254).
    let wide = "ж".repeat(128);
    assert_eq!(codes(&wide), vec!["E0010"]);
    let tokens: Vec<Token> = lex("t.rq", &wide)
        .0
        .into_iter()
        .map(|(_, t, _)| t)
        .collect();
    assert_eq!(tokens, vec![Token::Ident("ж".repeat(127))]);
}
