//! A syntax error from the grammar as a diagnostic: what was found, what the grammar expected there in words a newcomer reads, and a help line with the fix.

use super::lexer::{token_text, Token};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use lalrpop_util::ParseError;

pub(super) fn syntax_error(
    file: &str,
    end: usize,
    error: ParseError<usize, Token, ()>,
) -> Diagnostic {
    match error {
        ParseError::UnrecognizedToken {
            token: (l, token, r),
            expected,
        } => unexpected_token(file, Span::new(l, r), &token, &expected),
        ParseError::ExtraToken {
            token: (l, token, r),
        } => unexpected_token(file, Span::new(l, r), &token, &[]),
        ParseError::UnrecognizedEof { location, expected } => {
            unexpected_end(file, location.min(end), &expected)
        }
        // Lexer errors never reach the parser (`lex` reported them and left
        // them out of the stream), so these two cannot occur; they still map
        // to a diagnostic rather than a panic.
        ParseError::InvalidToken { location } => unexpected_end(file, location, &[]),
        ParseError::User { .. } => unexpected_end(file, end, &[]),
    }
}

/// lalrpop names terminals by their grammar spelling: `"\"=\""` or `Ident`.
fn describe_expected(expected: &str) -> String {
    match expected.trim_matches('"') {
        "Ident" => "a name".to_string(),
        "Int" => "an integer".to_string(),
        "Float" => "a number".to_string(),
        "Str" => "a string".to_string(),
        quoted => format!("`{}`", quoted.trim_matches('"')),
    }
}

const SOFT_KEYWORDS: [&str; 13] = [
    "key",
    "auto",
    "unique",
    "ref",
    "index",
    "bound",
    "desc",
    "asc",
    "max",
    "small",
    "in",
    "aggregate",
    "as",
];
const ITEM_STARTS: [&str; 8] = [
    "import",
    "pub",
    "table",
    "small",
    "fn",
    "query",
    "mutation",
    "aggregate",
];
const EXPRESSION_STARTS: [&str; 18] = [
    "Ident", "Int", "Float", "Str", "true", "false", "none", "(", "[", "{", "if", "insert",
    "update", "upsert", "delete", "-", "!", "let",
];

/// What the parser would have accepted, in words: names stand for the soft
/// keywords, "an expression" and "a new item" for their many first tokens.
fn expected_list(expected: &[String]) -> String {
    let described = expected_things(expected);
    match described.len() {
        0 => String::new(),
        1 => format!("expected {}", described[0]),
        n if n <= 6 => format!(
            "expected {} or {}",
            described[..n - 1].join(", "),
            described[n - 1]
        ),
        _ => format!("expected one of {}, …", described[..6].join(", ")),
    }
}

/// What the parser expected, in words: the tokens that start an
/// expression as "an expression", those that start an item as "a new
/// item", and each other token by itself.
fn expected_things(expected: &[String]) -> Vec<String> {
    let bare: Vec<&str> = expected.iter().map(|e| e.trim_matches('"')).collect();
    let has = |t: &str| bare.contains(&t);
    let expression = has("Ident") && has("Int") && has("(");
    let item = ITEM_STARTS.iter().filter(|t| has(t)).count() >= 5;
    let mut described: Vec<String> = Vec::new();
    if expression {
        described.push("an expression".to_string());
    }
    // `in` continues an expression only inside an access: listed last.
    let in_last = bare
        .iter()
        .filter(|t| **t != "in")
        .chain(bare.iter().filter(|t| **t == "in"));
    for token in in_last {
        // `IntMin` is an integer the lexer makes only after a `-`, where
        // an integer is expected too: never named apart.
        let covered = *token == "IntMin"
            || (expression && EXPRESSION_STARTS.contains(token))
            || (item && ITEM_STARTS.contains(token))
            || (has("Ident") && SOFT_KEYWORDS.contains(token));
        if !covered {
            described.push(describe_expected(token));
        }
    }
    if item {
        described.push("a new item".to_string());
    }
    described
}

fn expects(expected: &[String], token: &str) -> bool {
    expected.iter().any(|e| e.trim_matches('"') == token)
}

fn unexpected_token(file: &str, span: Span, token: &Token, expected: &[String]) -> Diagnostic {
    let label = if expected.is_empty() {
        "nothing more was expected here".to_string()
    } else {
        expected_list(expected)
    };
    let mut diagnostic =
        Diagnostic::error("E0101", format!("unexpected {token}"), file, span, label);
    diagnostic = diagnostic.with_help(help_for_unexpected(token, expected));
    diagnostic
}

/// A concrete fix for the commonest slips; a general pointer otherwise.
fn help_for_unexpected(token: &Token, expected: &[String]) -> String {
    let word = token_text(token);
    let keyword = !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase());
    let starts_item = matches!(
        token,
        Token::Pub
            | Token::Table
            | Token::Small
            | Token::Aggregate
            | Token::Fn
            | Token::Query
            | Token::Mutation
            | Token::Import
            | Token::Module
    );
    if matches!(token, Token::Let) && expects(expected, "Int") {
        return "`let` opens a statement inside braces: `{ let x = e; x }`".to_string();
    }
    if starts_item && !expects(expected, word) {
        return format!(
            "the item before `{word}` is unfinished: {} was still expected",
            expected_list(expected).trim_start_matches("expected ")
        );
    }
    if keyword && expects(expected, "Ident") {
        return format!("`{word}` is a reserved word; use another name, such as `{word}_`");
    }
    if matches!(token, Token::PlusEq | Token::MinusEq) {
        return format!(
            "`{word}` steps a column only in an update's changes, `update T[k] {{ n {word} 1 }}`; elsewhere give the value, `n: …`"
        );
    }
    if *token == Token::Eq && expects(expected, "==") {
        return "to compare two values write `==`; `=` only introduces a body or a `let`"
            .to_string();
    }
    let comparison = matches!(
        token,
        Token::Lt | Token::LtEq | Token::Gt | Token::GtEq | Token::EqEq | Token::NotEq
    );
    let arithmetic = matches!(
        token,
        Token::Plus | Token::Minus | Token::Star | Token::Slash | Token::Percent
    );
    if arithmetic && expects(expected, "|>") {
        return format!(
            "arithmetic binds tighter than `|>`, so a pipeline is not an operand: wrap it in parentheses, `(xs |> max() |> unwrap_or(0)) {word} 1`"
        );
    }
    // `s ++ t`, `+x`: there is one `+`, and no unary one.
    if *token == Token::Plus && expects(expected, "Int") {
        return "`+` adds two numbers or joins two strings, written between them: `a + b` (there is no `++`, and no unary `+`)".to_string();
    }
    if comparison && expects(expected, "&&") {
        return "comparisons do not chain: write `a < b && b < c`".to_string();
    }
    if expects(expected, "=") && expects(expected, "->") {
        return "a definition's body follows `=`: `query q(k: Int) = T[k]`".to_string();
    }
    if expects(expected, ":") && expected.len() <= 2 {
        return "give the type after a colon: `name: String`".to_string();
    }
    if expected.len() == 1 {
        return format!("write {} before {token}", describe_expected(&expected[0]));
    }
    if matches!(token, Token::RParen | Token::RBracket | Token::RBrace) {
        return "check that every bracket is closed by its own kind, and nothing is missing before it"
            .to_string();
    }
    if expects(expected, "table") && expects(expected, "query") {
        return "at the top level, write `import`, `table`, `small table`, `fn`, `query` or `mutation`"
            .to_string();
    }
    "see spec/syntax.md for the form this construct takes".to_string()
}

fn unexpected_end(file: &str, location: usize, expected: &[String]) -> Diagnostic {
    let label = if expected.is_empty() {
        "the text ends here".to_string()
    } else {
        format!("{} here", expected_list(expected))
    };
    let help = match expected
        .iter()
        .find(|e| matches!(e.trim_matches('"'), ")" | "]" | "}"))
    {
        Some(close) => format!("add the missing `{}`", close.trim_matches('"')),
        None => match expected_things(expected).first() {
            Some(first) => format!("finish the construct: {first} is missing"),
            None => "finish the construct before the end of the file".to_string(),
        },
    };
    Diagnostic::error(
        "E0102",
        "unexpected end of file",
        file,
        Span::new(location, location),
        label,
    )
    .with_help(help)
}
