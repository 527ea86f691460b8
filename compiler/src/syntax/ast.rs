//! The abstract syntax tree: what the parser gives, every node with its span.

use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A dotted name: `social.User`, `a.b.c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub segments: Vec<Ident>,
    pub span: Span,
}

impl Path {
    pub fn dotted(&self) -> String {
        let names: Vec<&str> = self.segments.iter().map(|s| s.name.as_str()).collect();
        names.join(".")
    }
}

/// One source file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub header: Option<Path>,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Import(Import),
    Table(Table),
    Def(Def),
    Aggregate(Aggregate),
}

/// `aggregate likes_of = count(Like) by post`, `aggregate spent =
/// sum(Order.total) by customer`: a value per group of a table's rows,
/// kept up to date by every write.
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub public: bool,
    pub name: Ident,
    /// `count`, `sum`, `min` or `max`, as written.
    pub function: Ident,
    /// `Like` (the table) or `Order.total` (the table, then the column).
    pub source: Path,
    pub by: Vec<Ident>,
    pub span: Span,
}

/// `import a.b` or `import a.b.{X, Y}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    pub path: Path,
    pub names: Option<Vec<Ident>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub public: bool,
    pub name: Ident,
    /// `small table T max N`: the whole table is an island of at most N rows.
    pub small_max: Option<(i64, Span)>,
    pub members: Vec<TableMember>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableMember {
    Field(Field),
    Key(Columns),
    Unique(Columns),
    Index(IndexDecl),
    Bound(BoundDecl),
}

/// A column list such as `(follower, followee)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    pub columns: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: Ident,
    pub ty: Type,
    pub modifiers: Vec<FieldModifier>,
    /// `name: String <= 200`: the most UTF-8 bytes a stored value may have,
    /// as written, with the literal's span.
    pub max_len: Option<(i64, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FieldModifier {
    Key(Span),
    Unique(Span),
    /// `key auto`: the store generates the key (spec/types.md).
    Auto(Span),
    Ref(Path, Span),
    /// `on delete cascade` / `on delete set none`, after `ref T`: what
    /// deleting the referenced row does to this row (spec/types.md).
    OnDelete(OnDeleteAction, Span),
    /// `= value`: what rows stored before the column was added read.
    Default(Expr, Span),
}

/// What `on delete` says is done to a row whose referenced row is deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDeleteAction {
    /// `on delete cascade`: the row is deleted too.
    Cascade,
    /// `on delete set none`: the column becomes `none`.
    SetNone,
}

impl OnDeleteAction {
    /// As written after `on delete`.
    pub fn text(self) -> &'static str {
        match self {
            OnDeleteAction::Cascade => "cascade",
            OnDeleteAction::SetNone => "set none",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct IndexDecl {
    pub name: Ident,
    pub columns: Vec<IndexColumn>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IndexColumn {
    pub name: Ident,
    pub descending: bool,
    pub span: Span,
}

/// `bound follower <= 5000`: at most `limit` rows share a value of `columns`.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundDecl {
    pub columns: Vec<Ident>,
    pub limit: i64,
    pub limit_span: Span,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    Fn,
    Query,
    Mutation,
}

impl DefKind {
    pub fn keyword(self) -> &'static str {
        match self {
            DefKind::Fn => "fn",
            DefKind::Query => "query",
            DefKind::Mutation => "mutation",
        }
    }
}

/// A `fn`, `query` or `mutation`.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub public: bool,
    pub kind: DefKind,
    pub name: Ident,
    pub generics: Vec<Ident>,
    pub params: Vec<Param>,
    pub ret: Option<Type>,
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ty: Type,
    /// `n: Int >= 0`: the caller's value is checked against it.
    pub lower: Option<(i64, Span)>,
    /// `n: Int <= 100` (or `s: String <= 20`, in bytes): the caller's value
    /// is checked against it.
    pub bound: Option<SizeBound>,
    pub span: Span,
}

/// A size in a type or parameter bound: a literal or a bound parameter's name.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeBound {
    Literal(i64, Span),
    Name(Ident),
}

impl SizeBound {
    pub fn span(&self) -> Span {
        match self {
            SizeBound::Literal(_, span) => *span,
            SizeBound::Name(ident) => ident.span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    Named(Ident),
    Option(Box<Type>),
    List(Box<Type>, Option<SizeBound>),
    Stream(Box<Type>),
    Record(Vec<(Ident, Type)>),
    Function(Vec<Type>, Box<Type>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
    /// The built-in functions of one value, written as calls
    /// (`length(s)`): the checker makes them from a call, the parser never.
    Length,
    Lower,
    Upper,
    ToFloat,
}

impl UnaryOp {
    /// The built-in function written `name(x)`, if this is one.
    pub fn function(name: &str) -> Option<UnaryOp> {
        Some(match name {
            "length" => UnaryOp::Length,
            "lower" => UnaryOp::Lower,
            "upper" => UnaryOp::Upper,
            "float" => UnaryOp::ToFloat,
            _ => return None,
        })
    }

    /// How the operator is written: a prefix symbol, or a function's name.
    pub fn written(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::Length => "length",
            UnaryOp::Lower => "lower",
            UnaryOp::Upper => "upper",
            UnaryOp::ToFloat => "float",
        }
    }
}

/// The built-in functions of one value, for completion.
pub const SCALAR_FUNCTIONS: [&str; 4] = ["length", "lower", "upper", "float"];

/// The built-in functions of no value, for completion: `now()`, the
/// transaction's time (mutations only).
pub const CLOCK_FUNCTIONS: [&str; 1] = ["now"];

/// The built-in functions of two values, for completion: `starts_with(s, p)`.
pub const PREDICATE_FUNCTIONS: [&str; 1] = ["starts_with"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// `key in xs`: only inside an access (`User[id in xs]`), where the
    /// checker reads one key per element; a value nowhere else.
    In,
    /// `starts_with(s, p)`, written as a call: the checker makes it from a
    /// call (and, inside an access, reads the matching key range instead).
    StartsWith,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::NotEq => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::In => "in",
            BinaryOp::StartsWith => "starts_with",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordField {
    pub name: Ident,
    pub value: Expr,
    /// Written `{ name }` rather than `{ name: name }`.
    pub shorthand: bool,
    /// `name += value` or `name -= value`: only in an update's changes,
    /// where it means `name: row.name + value` (or `-`).
    pub step: Option<Step>,
}

/// How an update's `+=` or `-=` steps a number column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Add,
    Sub,
}

impl Step {
    /// The operator as written: `+=` or `-=`.
    pub fn text(self) -> &'static str {
        match self {
            Step::Add => "+=",
            Step::Sub => "-=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Let {
        name: Ident,
        ty: Option<Type>,
        value: Expr,
    },
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    Name(Ident),
    Record(Vec<RecordField>),
    List(Vec<Expr>),
    Field(Box<Expr>, Ident),
    Call(Box<Expr>, Vec<Expr>),
    /// `T[k]`, `T.index[a, at < t]`: key, prefix or range access.
    Index(Box<Expr>, Vec<Expr>),
    /// `input |> f(args)`: `f(input, args)`.
    Pipe(Box<Expr>, Box<Expr>),
    Lambda(Vec<Ident>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Range(Box<Expr>, Box<Expr>),
    /// `(at, id)`: a tuple, only as a side of the comparison that is the
    /// last value of an access (`Post.by_time[(at, id) < (t, i)]`); the
    /// parser reports one anywhere else (E0104).
    Tuple(Vec<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Block(Vec<Stmt>, Box<Expr>),
    Insert(Path, Box<Expr>),
    /// `update target [as row] { changes }`: the row's name, when given,
    /// is in scope in the changes, bound to the row as it was.
    Update(Box<Expr>, Option<Ident>, Box<Expr>),
    /// `upsert T { … }`: inserts the row, or changes the columns named of
    /// the row with the same key.
    Upsert(Path, Box<Expr>),
    Delete(Box<Expr>),
    /// Where the parser recovered from an error already reported.
    Error,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// `{ let name = value; body }`, spanning `span`: how a rewrite names
    /// a value it computes once.
    pub fn let_in(name: Ident, value: Expr, body: Expr, span: Span) -> Expr {
        let bind = Stmt::Let {
            name,
            ty: None,
            value,
        };
        Expr::new(ExprKind::Block(vec![bind], Box::new(body)), span)
    }

    /// The expressions directly inside this one ([`Expr::each_child`]).
    pub fn children(&self) -> Vec<&Expr> {
        let mut found = Vec::new();
        self.each_child(&mut |e| found.push(e));
        found
    }

    /// The expressions directly inside this one, in the order they are
    /// written (a `let`'s value, not its declared type).
    pub fn each_child<'a>(&'a self, visit: &mut dyn FnMut(&'a Expr)) {
        match &self.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::None
            | ExprKind::Name(_)
            | ExprKind::Error => {}
            ExprKind::Record(fields) => fields.iter().for_each(|f| visit(&f.value)),
            ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().for_each(visit),
            ExprKind::Field(e, _)
            | ExprKind::Lambda(_, e)
            | ExprKind::Unary(_, e)
            | ExprKind::Insert(_, e)
            | ExprKind::Upsert(_, e)
            | ExprKind::Delete(e) => visit(e),
            ExprKind::Call(f, args) | ExprKind::Index(f, args) => {
                visit(f);
                args.iter().for_each(visit);
            }
            ExprKind::Pipe(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Range(a, b)
            | ExprKind::Update(a, _, b) => {
                visit(a);
                visit(b);
            }
            ExprKind::If(c, a, b) => {
                visit(c);
                visit(a);
                visit(b);
            }
            ExprKind::Block(stmts, last) => {
                for stmt in stmts {
                    match stmt {
                        Stmt::Let { value, .. } => visit(value),
                        Stmt::Expr(e) => visit(e),
                    }
                }
                visit(last);
            }
        }
    }
}
