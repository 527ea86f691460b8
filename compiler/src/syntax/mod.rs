//! Syntax: tokens, grammar, AST, printing. Knows nothing of types, storage or salsa.

mod alike;
pub mod ast;
pub mod depth;
mod lex_errors;
pub mod lexer;
pub mod parser;
pub mod pieces;
pub mod printer;
mod syntax_errors;
pub mod tree;

pub use parser::{parse, parse_at, parse_at_outcome, parse_expr};
