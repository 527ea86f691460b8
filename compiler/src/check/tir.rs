//! The typed intermediate representation: a checked body with names resolved and access paths chosen.

use crate::cost::Cost;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use rqc_plan::Value;

/// A range condition on the column after an access path's prefix.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeT {
    pub lower: Option<(TExpr, bool)>,
    pub upper: Option<(TExpr, bool)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TExpr {
    Const(Value),
    /// An entry point's parameter, by position.
    Param(usize),
    /// A `let`, lambda or function parameter in scope.
    Local(String),
    /// Whole primary key: at most one row.
    Lookup {
        table: String,
        key: Vec<TExpr>,
    },
    /// All columns of a unique index: at most one row.
    UniqueLookup {
        table: String,
        index: String,
        values: Vec<TExpr>,
    },
    /// A prefix (and optional range on the next column) of the key
    /// (`index: None`) or of an index; `bounded` when a declared bound or a
    /// small table limits it, else a stream.
    Scan {
        table: String,
        index: Option<String>,
        prefix: Vec<TExpr>,
        range: Option<Box<RangeT>>,
        bounded: bool,
    },
    Field(Box<TExpr>, String),
    Record(Vec<(String, TExpr)>),
    List(Vec<TExpr>),
    Unary(UnaryOp, Box<TExpr>),
    Binary(BinaryOp, Box<TExpr>, Box<TExpr>),
    If(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    Let(String, Box<TExpr>, Box<TExpr>),
    /// Statements evaluated in order; the last gives the value.
    Seq(Vec<TExpr>),
    /// A built-in combinator (`take`, `map`, `count`, …).
    Builtin(String, Vec<TExpr>),
    Lambda(Vec<String>, Box<TExpr>),
    /// A call of a function defined in RQL, by `module.name`.
    Call(String, Vec<TExpr>),
    /// A call of a function value in scope (a function-typed parameter).
    CallLocal(String, Vec<TExpr>),
    Insert {
        table: String,
        row: Vec<TExpr>,
    },
    Update {
        table: String,
        target: Box<TExpr>,
        changes: Vec<(String, TExpr)>,
    },
    Delete {
        table: String,
        target: Box<TExpr>,
    },
    /// `desc` (true) or `asc`.
    Order(bool),
    /// An operator with the static cost of one evaluation.
    Costed(Box<TExpr>, Cost),
    Error,
}
