//! Lexical errors as diagnostics: each `LexError` with its code, message, help, and the stand-in token the lexer goes on with, if any.

use super::lexer::{unescape, LexError, Token};
use crate::diagnostics::Diagnostic;
use crate::span::Span;

pub(super) fn lex_diagnostic(
    file: &str,
    source: &str,
    span: Span,
    error: LexError,
) -> (Diagnostic, Option<Token>) {
    let text = &source[span.range()];
    match error {
        LexError::UnexpectedCharacter => {
            let ch = text.chars().next().unwrap_or(' ');
            let mut d = Diagnostic::error(
                "E0001",
                format!("unexpected character `{}`", ch.escape_debug()),
                file,
                span,
                "not part of any RQL token",
            );
            d = d.with_help(match ch {
                '&' => "boolean and is written `&&`".to_string(),
                '|' => "boolean or is written `||`; a pipeline is `|>`".to_string(),
                '\'' => "strings use double quotes: \"text\"".to_string(),
                '#' => "comments start with `//`".to_string(),
                _ => format!("remove `{}`", ch.escape_debug()),
            });
            (d, None)
        }
        LexError::UnterminatedString => {
            let body = text.get(1..).unwrap_or("");
            let d = Diagnostic::error(
                "E0002",
                "unterminated string",
                file,
                span,
                "this string has no closing quote on its line",
            )
            .with_help("close the string with `\"` before the end of the line");
            (d, Some(Token::Str(unescape(body).unwrap_or_default())))
        }
        LexError::InvalidEscape(escape) => {
            let d = Diagnostic::error(
                "E0003",
                format!("unknown escape `{escape}` in string"),
                file,
                span,
                "in this string",
            )
            .with_help(
                "the escapes are \\n \\t \\r \\0 \\\\ \\\" and \\u{…}; write \\\\ for a backslash",
            );
            (d, Some(Token::Str(String::new())))
        }
        LexError::NameTooLong(bytes, name) => {
            let d = Diagnostic::error(
                "E0010",
                format!(
                    "a name of {bytes} bytes: names are at most {} bytes (counted in Unicode's normal form C, in which names are compared)",
                    rqc_plan::MAX_NAME_BYTES
                ),
                file,
                span,
                "too long a name",
            )
            .with_help("give it a shorter name; a comment beside it can say more");
            (d, Some(Token::Ident(name)))
        }
        LexError::IntegerTooLarge => {
            let d = Diagnostic::error(
                "E0004",
                "integer literal too large",
                file,
                span,
                "does not fit in a 64-bit signed integer",
            )
            .with_help(format!("integers range up to {}", i64::MAX));
            (d, Some(Token::Int(0)))
        }
        LexError::FloatTooLarge => {
            let d = Diagnostic::error(
                "E0006",
                "float literal too large",
                file,
                span,
                "beyond the largest 64-bit float",
            )
            .with_help(
                "the largest float is about 1.8e308 (1.7976931348623157e308); \
                 write a number no larger, such as 1.0e308",
            );
            (d, Some(Token::Float(0.0)))
        }
        LexError::BadNumber => {
            let d = Diagnostic::error(
                "E0005",
                "malformed number",
                file,
                span,
                "not a valid number",
            )
            .with_help("write numbers like 42, 1_000, 3.5 or 2.5e3");
            (d, Some(Token::Float(0.0)))
        }
    }
}
