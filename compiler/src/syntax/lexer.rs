//! The lexer: source text to tokens (logos), with lexical errors as diagnostics (made in `lex_errors.rs`).

use crate::diagnostics::Diagnostic;
use crate::span::Span;
use logos::Logos;
use rqc_plan::number::NumberType;
use std::fmt;

/// Why a piece of text is not a token. Turned into a diagnostic by [`lex`].
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    #[default]
    UnexpectedCharacter,
    UnterminatedString,
    InvalidEscape(String),
    /// An identifier longer than `rqc_plan::MAX_NAME_BYTES`: its length,
    /// and the stand-in the lexer goes on with (its first bytes, as many
    /// whole characters as fit), so that no plan holds a name its verifier
    /// refuses.
    NameTooLong(usize, String),
    IntegerTooLarge,
    FloatTooLarge,
    BadNumber,
}

/// An identifier token's name (NFC), refused past
/// `rqc_plan::MAX_NAME_BYTES`: every name a program gives ends up in its
/// plan, whose verifier refuses longer ones.
fn name(text: &str) -> Result<String, LexError> {
    let name = identifier(text);
    if name.len() <= rqc_plan::MAX_NAME_BYTES {
        return Ok(name);
    }
    let mut end = rqc_plan::MAX_NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    Err(LexError::NameTooLong(name.len(), name[..end].to_string()))
}

/// An identifier's text in Unicode's normal form C.
pub fn identifier(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    icu_normalizer::ComposingNormalizerBorrowed::new_nfc()
        .normalize(text)
        .into_owned()
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Token {
    // Keywords.
    #[token("module")]
    Module,
    #[token("import")]
    Import,
    #[token("pub")]
    Pub,
    #[token("table")]
    Table,
    #[token("small")]
    Small,
    #[token("aggregate")]
    Aggregate,
    #[token("max")]
    Max,
    #[token("key")]
    Key,
    #[token("unique")]
    Unique,
    #[token("auto")]
    Auto,
    #[token("ref")]
    Ref,
    #[token("index")]
    Index,
    #[token("bound")]
    Bound,
    #[token("desc")]
    Desc,
    #[token("asc")]
    Asc,
    #[token("in")]
    In,
    #[token("as")]
    As,
    #[token("upsert")]
    Upsert,
    #[token("fn")]
    Fn,
    #[token("query")]
    Query,
    #[token("mutation")]
    Mutation,
    #[token("let")]
    Let,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("insert")]
    Insert,
    #[token("update")]
    Update,
    #[token("delete")]
    Delete,
    #[token("stream")]
    Stream,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("none")]
    None,

    // Literals and names.
    // Unicode identifiers, as Rust's: a letter of XID_Start or `_`, then
    // XID_Continue; NFC-normalised, so that `Café` typed with a combining
    // accent names the same thing (spec/syntax.md).
    #[regex(r"[\p{XID_Start}_]\p{XID_Continue}*", |lex| name(lex.slice()))]
    Ident(String),
    #[regex(r"[0-9][0-9_]*", parse_int)]
    Int(i64),
    /// `9223372036854775808` right after a `-`: the magnitude of
    /// `i64::MIN`, which only a negated literal may be (the grammar's
    /// `"-" IntMin`; subtracted, it is E0004 there). [`Tokens`] makes it in
    /// place of the E0004 the number alone is; no pattern does.
    IntMin,
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?", parse_float)]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9]+", parse_float)]
    Float(f64),
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, parse_string)]
    Str(String),
    #[regex(r#""([^"\\\n]|\\[^\n])*"#, unterminated_string)]
    UnterminatedStr,

    // Punctuation and operators.
    #[token("|>")]
    Pipe,
    #[token("=>")]
    FatArrow,
    #[token("->")]
    Arrow,
    #[token("<=")]
    #[token("≤")]
    LtEq,
    #[token(">=")]
    #[token("≥")]
    GtEq,
    #[token("==")]
    EqEq,
    #[token("!=")]
    #[token("≠")]
    NotEq,
    #[token("..")]
    DotDot,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("=")]
    Eq,
    #[token("!")]
    Bang,
    #[token("?")]
    Question,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
}

/// The codes of the lexical errors after which the lexer goes on with a
/// stand-in value (`0`, `0.0`, an empty or partly read string): a
/// definition holding one is rejected, never checked with the stand-in.
pub const STAND_IN_CODES: [&str; 6] = ["E0002", "E0003", "E0004", "E0005", "E0006", "E0010"];

/// The parse errors after which the parser skipped or guessed tokens to go
/// on (a token where it cannot stand, a lambda parameter that is not a
/// name, a tuple as a value): a definition holding one is rejected too.
pub const RECOVERED_CODES: [&str; 3] = ["E0101", "E0103", "E0104"];

/// A number literal, read by the one number parser every front end uses
/// (`rqc_plan::number`), its codes as lexical errors.
fn parse_number(text: &str, ty: NumberType) -> Result<rqc_plan::Value, LexError> {
    rqc_plan::number::parse(text, ty).map_err(|error| match error.code {
        "E0004" => LexError::IntegerTooLarge,
        // Beyond `f64::MAX` the parse rounds to infinity, which no value
        // of a `Float` may be (JSON has no spelling for it).
        "E0006" => LexError::FloatTooLarge,
        _ => LexError::BadNumber,
    })
}

fn parse_int(lex: &mut logos::Lexer<Token>) -> Result<i64, LexError> {
    match parse_number(lex.slice(), NumberType::Int)? {
        rqc_plan::Value::Int(n) => Ok(n),
        _ => Err(LexError::BadNumber),
    }
}

fn parse_float(lex: &mut logos::Lexer<Token>) -> Result<f64, LexError> {
    match parse_number(lex.slice(), NumberType::Float)? {
        rqc_plan::Value::Float(x) => Ok(x),
        _ => Err(LexError::BadNumber),
    }
}

fn parse_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexError> {
    let slice = lex.slice();
    unescape(&slice[1..slice.len() - 1])
}

fn unterminated_string(_: &mut logos::Lexer<Token>) -> Result<(), LexError> {
    Err(LexError::UnterminatedString)
}

/// Resolves `\n`, `\t`, `\r`, `\\`, `\"`, `\0` and `\u{…}`.
pub fn unescape(body: &str) -> Result<String, LexError> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('u') => {
                let rest: String = chars.clone().collect();
                let close = rest.find('}');
                let code = match (rest.starts_with('{'), close) {
                    (true, Some(close)) => u32::from_str_radix(&rest[1..close], 16)
                        .ok()
                        .and_then(char::from_u32),
                    _ => None,
                };
                match code {
                    Some(ch) => {
                        out.push(ch);
                        for _ in 0..=close.unwrap_or(0) {
                            chars.next();
                        }
                    }
                    None => return Err(LexError::InvalidEscape("\\u".into())),
                }
            }
            Some(other) => return Err(LexError::InvalidEscape(format!("\\{other}"))),
            None => return Err(LexError::InvalidEscape("\\".into())),
        }
    }
    Ok(out)
}

/// Escapes a string so that [`unescape`] gives it back.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A token with its byte range.
pub type Spanned = (usize, Token, usize);

/// Lexes the whole text. Bad input never stops the lexer: each problem becomes
/// a diagnostic, and a stand-in token keeps the parser going where one helps
/// (an unterminated string still yields a string).
pub fn lex(file: &str, source: &str) -> (Vec<Spanned>, Vec<Diagnostic>) {
    let mut lexer = Tokens::new(file, source, 0);
    let tokens = (&mut lexer).collect();
    (tokens, lexer.diagnostics)
}

/// The tokens of a text found at byte `base` of a file, one at a time, as
/// the parser asks for them (no list of them is made): [`lex`]'s tokens
/// and diagnostics, every span `base` further on.
pub struct Tokens<'s> {
    file: &'s str,
    source: &'s str,
    base: usize,
    lexer: logos::SpannedIter<'s, Token>,
    /// The lexical errors met so far.
    pub diagnostics: Vec<Diagnostic>,
    /// The start of the first token after each lexical error (see
    /// `parser::parse_at_outcome`).
    pub after_errors: Vec<u32>,
    /// How many tokens were given so far.
    pub count: usize,
    /// Where each stand-in token starts (see [`StandIns`]).
    pub stand_ins: StandIns,
    after_error: bool,
    /// Whether the last token given was `-` (see [`Token::IntMin`]).
    after_minus: bool,
}

/// The starts of the stand-in tokens the lexer gave for literals it could
/// not read, shared with the parser's actions (which run behind the
/// tokens, so each is known before the literal is built): such a literal
/// becomes an error expression, never a value.
pub type StandIns = std::rc::Rc<std::cell::RefCell<Vec<usize>>>;

impl<'s> Tokens<'s> {
    pub fn new(file: &'s str, source: &'s str, base: usize) -> Tokens<'s> {
        let mut lexer = Token::lexer(source);
        // A byte-order mark opening a file, as some editors write and send,
        // is no part of the program (files read from disk lose it first;
        // an editor's text and a library caller's do not).
        if base == 0 && source.starts_with('\u{feff}') {
            lexer.bump('\u{feff}'.len_utf8());
        }
        Tokens {
            file,
            source,
            base,
            lexer: lexer.spanned(),
            diagnostics: Vec::new(),
            after_errors: Vec::new(),
            count: 0,
            stand_ins: StandIns::default(),
            after_error: false,
            after_minus: false,
        }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Spanned;

    fn next(&mut self) -> Option<Spanned> {
        loop {
            let (result, range) = self.lexer.next()?;
            let (start, end) = (range.start + self.base, range.end + self.base);
            let (token, error) = match result {
                Ok(token) => (Some(token), false),
                Err(LexError::IntegerTooLarge)
                    if self.after_minus && is_int_min_magnitude(&self.source[range.clone()]) =>
                {
                    (Some(Token::IntMin), false)
                }
                Err(error) => {
                    let span = Span::new(range.start, range.end);
                    let (mut diagnostic, stand_in) =
                        super::lex_errors::lex_diagnostic(self.file, self.source, span, error);
                    diagnostic.shift(self.base as u32);
                    self.diagnostics.push(diagnostic);
                    if stand_in.is_some() {
                        self.stand_ins.borrow_mut().push(start);
                    }
                    (stand_in, true)
                }
            };
            // A stand-in token is after the errors before its own, not
            // after its own (it starts where that error does).
            if token.is_some() && std::mem::take(&mut self.after_error) {
                self.after_errors.push(start as u32);
            }
            self.after_error |= error;
            if let Some(token) = token {
                self.count += 1;
                self.after_minus = token == Token::Minus;
                return Some((start, token, end));
            }
        }
    }
}

/// Whether an integer literal's text is 9223372036854775808, the
/// magnitude of `i64::MIN` (`_` between digits aside; leading zeros too).
fn is_int_min_magnitude(text: &str) -> bool {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    digits.trim_start_matches('0') == "9223372036854775808"
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Token::Ident(name) => return write!(f, "identifier `{name}`"),
            Token::Int(value) => return write!(f, "integer `{value}`"),
            Token::IntMin => return write!(f, "integer `{}`", i64::MIN.unsigned_abs()),
            Token::Float(value) => return write!(f, "number `{value}`"),
            Token::Str(_) | Token::UnterminatedStr => "a string",
            other => return write!(f, "`{}`", token_text(other)),
        };
        f.write_str(text)
    }
}

/// The fixed spelling of a keyword or punctuation token.
pub fn token_text(token: &Token) -> &'static str {
    match token {
        Token::Module => "module",
        Token::Import => "import",
        Token::Pub => "pub",
        Token::Table => "table",
        Token::Small => "small",
        Token::Aggregate => "aggregate",
        Token::Max => "max",
        Token::Key => "key",
        Token::Unique => "unique",
        Token::Auto => "auto",
        Token::Ref => "ref",
        Token::Index => "index",
        Token::Bound => "bound",
        Token::Desc => "desc",
        Token::Asc => "asc",
        Token::In => "in",
        Token::As => "as",
        Token::Upsert => "upsert",
        Token::Fn => "fn",
        Token::Query => "query",
        Token::Mutation => "mutation",
        Token::Let => "let",
        Token::If => "if",
        Token::Else => "else",
        Token::Insert => "insert",
        Token::Update => "update",
        Token::Delete => "delete",
        Token::Stream => "stream",
        Token::True => "true",
        Token::False => "false",
        Token::None => "none",
        Token::Pipe => "|>",
        Token::FatArrow => "=>",
        Token::Arrow => "->",
        Token::LtEq => "<=",
        Token::GtEq => ">=",
        Token::EqEq => "==",
        Token::NotEq => "!=",
        Token::DotDot => "..",
        Token::AndAnd => "&&",
        Token::OrOr => "||",
        Token::Lt => "<",
        Token::Gt => ">",
        Token::Eq => "=",
        Token::Bang => "!",
        Token::Question => "?",
        Token::PlusEq => "+=",
        Token::MinusEq => "-=",
        Token::Plus => "+",
        Token::Minus => "-",
        Token::Star => "*",
        Token::Slash => "/",
        Token::Percent => "%",
        Token::Dot => ".",
        Token::Comma => ",",
        Token::Colon => ":",
        Token::Semi => ";",
        Token::LParen => "(",
        Token::RParen => ")",
        Token::LBracket => "[",
        Token::RBracket => "]",
        Token::LBrace => "{",
        Token::RBrace => "}",
        Token::Ident(_)
        | Token::Int(_)
        | Token::IntMin
        | Token::Float(_)
        | Token::Str(_)
        | Token::UnterminatedStr => "",
    }
}

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
