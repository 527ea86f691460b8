//! Types of RQL expressions, with the value ranges of integers, the sizes of lists, the costs of streams and functions.

use crate::cost::Interval;
use crate::cost::{Cost, Poly};
use crate::syntax::ast::Ident;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// An integer whose value lies in the interval.
    Int(Interval),
    Float,
    /// A string of at most this many UTF-8 bytes (so of at most as many
    /// characters): a literal's, a column's or parameter's `String <= 20`,
    /// or unbounded.
    Str(Poly),
    Bool,
    /// A row of the named table, with what the `filter` that kept it
    /// proved of its columns (`narrowing.rs`): each column's range (keyed
    /// by its name) or its length (`body.length`); none for a row read
    /// as it is. The facts narrow its columns where they are read
    /// (`fields.rs`); the row is one of its table's all the same.
    Row(String, Vec<(String, Interval)>),
    Record(Vec<(String, Ty)>),
    Option(Box<Ty>),
    /// A list of at most `size` elements; of `Int`s, where its least and
    /// greatest elements lie when that is tighter than the elements'
    /// range (`extremes.rs`; `None`: the elements' range).
    List(Box<Ty>, Poly, Option<Box<crate::cost::Extremes>>),
    /// A lazily read, unbounded range: read only by a limiting consumer.
    Stream(Box<StreamTy>),
    /// A function value whose parameter types are known: a parameter of a
    /// definition, or a lambda checked where it is passed.
    Fn(Box<FnTy>),
    /// A function value that is one of several: lambdas checked at each
    /// application with the arguments' types, and known functions (an
    /// `if` between two, a list of them).
    Fns(Vec<FnCandidate>),
    /// A type parameter of a generic function.
    Generic(String),
    /// `desc` or `asc`, the order argument of `sort_by`.
    Order,
    /// Written where an error was already reported; fits everything.
    Error,
}

/// A stream: its elements, what starting to read costs (the seek into the
/// range), what reading one more element costs, and where it reads (for
/// rejections: "filter reads every row of User").
#[derive(Clone, Debug, PartialEq)]
pub struct StreamTy {
    pub elem: Ty,
    pub open: Cost,
    pub per_element: Cost,
    pub source: StreamSource,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StreamSource {
    pub table: String,
    /// `every row of User`, `the rows of Post.by_author[a]`.
    pub description: String,
    /// The leading columns fixed by the access (to suggest a `bound`).
    pub prefix_columns: Vec<String>,
    /// The next column of the access path, if any (to suggest a range).
    pub next_column: Option<String>,
    /// The access as written, e.g. `Post.by_author[a]`.
    pub access: String,
    /// The column the stream runs in, while its rows are the access's own
    /// (no `map`, `skip` or tie-reversing `reverse` yet): what a `sort_by`
    /// on it may read the range in (spec/cost.md, "Reverse reads").
    pub order: Option<StreamOrder>,
    /// Whether a `skip` dropped rows from its start: it can no longer be
    /// read from its other end.
    pub skipped: bool,
}

impl StreamSource {
    /// A stream's source that is no access written here (a parameter's,
    /// a list's), described for messages.
    pub fn unnamed(description: &str) -> StreamSource {
        StreamSource {
            table: String::new(),
            description: description.into(),
            prefix_columns: Vec::new(),
            next_column: None,
            access: String::new(),
            order: None,
            skipped: false,
        }
    }
}

/// The column after a stream's prefix, which its range runs in.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamOrder {
    pub column: String,
    /// Whether the column runs descending in its index.
    pub descending: bool,
    /// Whether the column with the access's prefix identifies a row, so
    /// that no two rows tie and either direction is one order.
    pub identifies_row: bool,
}

/// A function value: parameter and result types and what one call costs.
#[derive(Clone, Debug, PartialEq)]
pub struct FnTy {
    pub params: Vec<Ty>,
    pub ret: Ty,
    pub latent: Cost,
    /// What it proves of its arguments where it returns true: a predicate
    /// a function made (`le(10)`, with `fn le(k: Int) -> Int -> Bool = x
    /// => x <= k`), read where it is applied in a condition or given to
    /// `filter` (`guards.rs`). Kept only as made: any other function type
    /// (a transformed one included) proves nothing.
    pub proves: Option<std::sync::Arc<super::returned_guards::ReturnedGuard>>,
}

/// One function a value of type [`Ty::Fns`] may be.
// Candidates live in a `Ty::Fns`' vector, already on the heap, and are
// mostly known functions: boxing those would add an allocation to each.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum FnCandidate {
    Known(FnTy),
    Lambda(Arc<DelayedLambda>),
}

/// A lambda written where nothing gives its parameters' types (a `let`,
/// an `if` branch, a list element): its body is checked at each
/// application, with the arguments' types, in the scope it was written in.
pub struct DelayedLambda {
    /// Unique within the definition; its typed body is kept under it.
    pub id: usize,
    pub params: Vec<Ident>,
    pub body: crate::syntax::ast::Expr,
    /// The names in scope where it was written.
    pub captured: super::locals::Locals,
    /// The facts of the `if`s around the place it was written, which hold
    /// wherever it is applied ([`crate::cost::facts_around`]).
    pub facts: Vec<crate::cost::Fact<super::narrowing::Named>>,
    /// The check of a body it was written in (`rqc_cost::Frames`).
    pub frame: u64,
    /// Whether its body writes a lambda, which may capture a parameter and
    /// be returned, or is a condition, which a call in a condition reads
    /// (`guards.rs`): its parameters then keep sums of names it does not
    /// see (`Checker::apply_delayed`).
    pub keeps_foreign_sums: bool,
}

impl PartialEq for DelayedLambda {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl fmt::Debug for DelayedLambda {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lambda#{}", self.id)
    }
}

impl Ty {
    pub fn list(elem: Ty, size: Poly) -> Ty {
        Ty::List(Box::new(elem), size, None)
    }

    /// An option of `inner`. Options do not nest: at run time an option
    /// is `none` or its value, so `T??` is `T?` (`some(none)` is `none`).
    /// A row of `table`, read as it is (no column narrowed).
    pub fn row(table: String) -> Ty {
        Ty::Row(table, Vec::new())
    }

    pub fn option(inner: Ty) -> Ty {
        match inner {
            Ty::Option(_) => inner,
            other => Ty::Option(Box::new(other)),
        }
    }

    /// A string nothing bounds the length of.
    pub fn string() -> Ty {
        Ty::Str(Poly::unbounded("length"))
    }

    /// An integer nothing bounds (`what` names it in messages).
    pub fn any_int(what: &str) -> Ty {
        Ty::Int(Interval::unbounded(what))
    }

    /// Whether values of this type have an order the language exposes
    /// (`<`, `sort_by`): numbers and strings, and options of them (`none`
    /// first, as in an index). The error type is, so one error is reported.
    pub fn is_ordered(&self) -> bool {
        let scalar = |t: &Ty| matches!(t, Ty::Int(_) | Ty::Float | Ty::Str(_));
        scalar(self) || self.is_error() || matches!(self, Ty::Option(inner) if scalar(inner))
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Ty::Int(_))
    }

    pub fn is_fn(&self) -> bool {
        matches!(self, Ty::Fn(_) | Ty::Fns(_))
    }

    /// The value range of an integer (of the value inside an option).
    pub fn interval(&self) -> Option<&Interval> {
        match self {
            Ty::Int(interval) => Some(interval),
            Ty::Option(inner) => inner.interval(),
            _ => None,
        }
    }

    /// Whether either type may stand where the other is expected: the two
    /// sides of a comparison, arithmetic or `if`.
    pub fn compatible(&self, other: &Ty) -> bool {
        self.accepts(other) || other.accepts(self)
    }

    /// Whether a value of type `found` may be used where `self` is
    /// expected, ignoring sizes, ranges and costs (see `measures`).
    pub fn accepts(&self, found: &Ty) -> bool {
        match (self, found) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Generic(a), Ty::Generic(b)) => a == b,
            (Ty::Option(a), Ty::Option(b)) => a.accepts(b),
            // A value fits an option of its type.
            (Ty::Option(a), b) => a.accepts(b),
            (Ty::List(a, ..), Ty::List(b, ..)) => a.accepts(b),
            (Ty::Stream(a), Ty::Stream(b)) => a.elem.accepts(&b.elem),
            (Ty::Record(a), Ty::Record(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(n, t)| b.iter().any(|(m, u)| n == m && t.accepts(u)))
            }
            (Ty::Fn(a), Ty::Fn(b)) => {
                a.params.len() == b.params.len()
                    && a.params.iter().zip(&b.params).all(|(x, y)| y.accepts(x))
                    && a.ret.accepts(&b.ret)
            }
            // Delayed lambdas are checked where they are applied.
            (Ty::Fn(_) | Ty::Fns(_), Ty::Fns(_)) | (Ty::Fns(_), Ty::Fn(_)) => true,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b) && a.same_name(b),
        }
    }

    fn same_name(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Row(a, _), Ty::Row(b, _)) => a == b,
            _ => true,
        }
    }

    /// Replaces type parameters by their bindings.
    pub fn substitute_generics(&self, bindings: &BTreeMap<String, Ty>) -> Ty {
        self.map(&|t| match t {
            Ty::Generic(name) => bindings.get(name).cloned(),
            _ => None,
        })
    }

    /// Every part equal to `from` replaced by `to`.
    pub fn replace(&self, from: &Ty, to: &Ty) -> Ty {
        self.map(&|t| (t == from).then(|| to.clone()))
    }

    /// Rebuilds the type bottom-up; `f` may replace a node (its answer is
    /// not visited again).
    pub(super) fn map(&self, f: &dyn Fn(&Ty) -> Option<Ty>) -> Ty {
        if let Some(replaced) = f(self) {
            return replaced;
        }
        match self {
            Ty::Option(inner) => Ty::option(inner.map(f)),
            Ty::List(elem, size, extremes) => {
                // The extremes hold of these elements: kept only where
                // the elements' type is unchanged, or is a type parameter
                // given its type (the same values, now `Int`s).
                let mapped = elem.map(f);
                let same_values = mapped == **elem || matches!(**elem, Ty::Generic(_));
                let extremes = extremes.as_ref().filter(|_| same_values);
                Ty::list_with(mapped, size.clone(), extremes.map(|e| (**e).clone()))
            }
            Ty::Record(fields) => {
                Ty::Record(fields.iter().map(|(n, t)| (n.clone(), t.map(f))).collect())
            }
            Ty::Fn(func) => Ty::Fn(Box::new(FnTy {
                params: func.params.iter().map(|p| p.map(f)).collect(),
                ret: func.ret.map(f),
                latent: func.latent.clone(),
                proves: None,
            })),
            // A candidate replaced by several (a parameter's type by the
            // lambda given for it, `passg2(f, g) = if c { f } else { g }`)
            // is each of them.
            Ty::Fns(candidates) => Ty::one_of(candidates.iter().flat_map(|c| match c {
                FnCandidate::Known(func) => match Ty::Fn(Box::new(func.clone())).map(f) {
                    Ty::Fn(mapped) => vec![FnCandidate::Known(*mapped)],
                    Ty::Fns(several) => several,
                    _ => vec![c.clone()],
                },
                FnCandidate::Lambda(_) => vec![c.clone()],
            })),
            Ty::Stream(s) => Ty::Stream(Box::new(StreamTy {
                elem: s.elem.map(f),
                open: s.open.clone(),
                per_element: s.per_element.clone(),
                source: s.source.clone(),
            })),
            other => other.clone(),
        }
    }

    /// A value that is one of `candidates`, each once: one known function
    /// is a `Fn`, anything else `Fns`.
    pub fn one_of(candidates: impl IntoIterator<Item = FnCandidate>) -> Ty {
        let mut distinct: Vec<FnCandidate> = Vec::new();
        for candidate in candidates {
            if !distinct.contains(&candidate) {
                distinct.push(candidate);
            }
        }
        match distinct.as_slice() {
            [FnCandidate::Known(one)] => Ty::Fn(Box::new(one.clone())),
            _ => Ty::Fns(distinct),
        }
    }

    /// Whether any size, range or cost inside the type satisfies `test`
    /// (what [`Ty::map_polys`] would visit).
    pub fn any_poly(&self, test: &dyn Fn(&Poly) -> bool) -> bool {
        let cost = |c: &Cost| c.measures().iter().any(|(_, p)| test(p));
        let func = |f: &FnTy| {
            f.params.iter().any(|p| p.any_poly(test)) || f.ret.any_poly(test) || cost(&f.latent)
        };
        match self {
            Ty::Int(interval) => test(&interval.hi) || test(&interval.lo),
            Ty::Option(inner) => inner.any_poly(test),
            Ty::List(elem, size, extremes) => {
                test(size)
                    || elem.any_poly(test)
                    || extremes.as_ref().is_some_and(|e| e.any_poly(test))
            }
            Ty::Str(length) => test(length),
            Ty::Row(_, facts) => facts.iter().any(|(_, i)| test(&i.hi) || test(&i.lo)),
            Ty::Record(fields) => fields.iter().any(|(_, t)| t.any_poly(test)),
            Ty::Fn(f) => func(f),
            Ty::Fns(candidates) => candidates.iter().any(|c| match c {
                FnCandidate::Known(f) => func(f),
                FnCandidate::Lambda(_) => false,
            }),
            Ty::Stream(s) => s.elem.any_poly(test) || cost(&s.open) || cost(&s.per_element),
            _ => false,
        }
    }

    /// Applies `f` to every size, range and cost inside the type.
    pub fn map_polys(&self, f: &dyn Fn(&Poly) -> Poly) -> Ty {
        let cost = |c: &Cost| c.map(f);
        match self {
            Ty::Int(interval) => Ty::Int(interval.map_polys(f)),
            Ty::Option(inner) => Ty::option(inner.map_polys(f)),
            Ty::List(elem, size, extremes) => Ty::list_with(
                elem.map_polys(f),
                f(size),
                extremes.as_ref().map(|e| e.map_polys(f)),
            ),
            Ty::Str(length) => Ty::Str(f(length)),
            Ty::Row(table, facts) => Ty::Row(
                table.clone(),
                facts
                    .iter()
                    .map(|(n, i)| (n.clone(), i.map_polys(f)))
                    .collect(),
            ),
            Ty::Record(fields) => Ty::Record(
                fields
                    .iter()
                    .map(|(n, t)| (n.clone(), t.map_polys(f)))
                    .collect(),
            ),
            Ty::Fn(func) => Ty::Fn(Box::new(func.map_polys(f))),
            Ty::Fns(candidates) => Ty::Fns(
                candidates
                    .iter()
                    .map(|c| match c {
                        FnCandidate::Known(func) => FnCandidate::Known(func.map_polys(f)),
                        FnCandidate::Lambda(_) => c.clone(),
                    })
                    .collect(),
            ),
            Ty::Stream(s) => Ty::Stream(Box::new(StreamTy {
                elem: s.elem.map_polys(f),
                open: cost(&s.open),
                per_element: cost(&s.per_element),
                source: s.source.clone(),
            })),
            other => other.clone(),
        }
    }

    /// Whether anything inside satisfies `test` (the type itself included).
    pub fn any(&self, test: &dyn Fn(&Ty) -> bool) -> bool {
        if test(self) {
            return true;
        }
        match self {
            Ty::Option(inner) => inner.any(test),
            Ty::List(elem, ..) => elem.any(test),
            Ty::Record(fields) => fields.iter().any(|(_, t)| t.any(test)),
            Ty::Stream(s) => s.elem.any(test),
            Ty::Fn(func) => func.params.iter().any(|p| p.any(test)) || func.ret.any(test),
            Ty::Fns(candidates) => candidates.iter().any(|c| match c {
                FnCandidate::Known(func) => {
                    func.params.iter().any(|p| p.any(test)) || func.ret.any(test)
                }
                FnCandidate::Lambda(_) => false,
            }),
            _ => false,
        }
    }

    /// A stream somewhere inside: reading or comparing the value would read it.
    pub fn holds_stream(&self) -> bool {
        self.any(&|t| matches!(t, Ty::Stream(_)))
    }

    /// `none` whose type nothing fixed yet (`??`).
    pub fn is_bare_none(&self) -> bool {
        matches!(self, Ty::Option(inner) if matches!(**inner, Ty::Error))
    }

    /// A bare `none` somewhere inside: a type that is not known.
    pub fn holds_bare_none(&self) -> bool {
        self.any(&|t| t.is_bare_none())
    }

    /// A collection of one table's rows: a list, stream or option of rows
    /// (what `a || b` takes as a union).
    pub fn holds_rows(&self) -> bool {
        match self {
            Ty::List(elem, ..) | Ty::Option(elem) => matches!(**elem, Ty::Row(..)),
            Ty::Stream(stream) => matches!(stream.elem, Ty::Row(..)),
            _ => false,
        }
    }

    /// A function somewhere inside.
    pub fn holds_fn(&self) -> bool {
        self.any(&|t| t.is_fn())
    }

    /// A lambda whose parameter types are not known yet.
    pub fn holds_delayed(&self) -> bool {
        self.any(
            &|t| matches!(t, Ty::Fns(c) if c.iter().any(|c| matches!(c, FnCandidate::Lambda(_)))),
        )
    }

    /// The type parameters named inside.
    pub fn generics(&self) -> Vec<String> {
        let found = std::cell::RefCell::new(Vec::new());
        self.any(&|t| {
            if let Ty::Generic(name) = t {
                found.borrow_mut().push(name.clone());
            }
            false
        });
        found.into_inner()
    }

    /// The type without sizes: what compatibility compares, for messages.
    pub fn shape(&self) -> String {
        self.map_polys(&|_| Poly::zero())
            .to_string()
            .replace("; ≤ 0]", "]")
    }
}

impl FnTy {
    pub fn map_polys(&self, f: &dyn Fn(&Poly) -> Poly) -> FnTy {
        FnTy {
            params: self.params.iter().map(|p| p.map_polys(f)).collect(),
            ret: self.ret.map_polys(f),
            latent: self.latent.map(f),
            proves: None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int(_) => write!(f, "Int"),
            Ty::Float => write!(f, "Float"),
            Ty::Str(_) => write!(f, "String"),
            Ty::Bool => write!(f, "Bool"),
            Ty::Row(table, _) => write!(f, "{table}"),
            Ty::Record(fields) => {
                let fields: Vec<String> = fields.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                write!(f, "{{ {} }}", fields.join(", "))
            }
            Ty::Option(inner) => match **inner {
                Ty::Fn(_) | Ty::Fns(_) => write!(f, "({inner})?"),
                _ => write!(f, "{inner}?"),
            },
            Ty::List(elem, size, _) => match size.max_value() {
                Some(max) => write!(f, "[{elem}; ≤ {max}]"),
                None => write!(f, "[{elem}; ≤ {size}]"),
            },
            // `stream User?` reads as an optional stream: a stream of
            // options is written with parentheses, as it is parsed.
            Ty::Stream(stream) => match stream.elem {
                Ty::Option(_) | Ty::Fn(_) | Ty::Fns(_) => write!(f, "stream ({})", stream.elem),
                _ => write!(f, "stream {}", stream.elem),
            },
            Ty::Fn(func) => {
                let params: Vec<String> = func.params.iter().map(|p| p.to_string()).collect();
                match params.as_slice() {
                    [one] => write!(f, "{one} -> {}", func.ret),
                    many => write!(f, "({}) -> {}", many.join(", "), func.ret),
                }
            }
            Ty::Fns(candidates) => match candidates.as_slice() {
                [FnCandidate::Known(func)] => write!(f, "{}", Ty::Fn(Box::new(func.clone()))),
                [FnCandidate::Lambda(lambda)] => {
                    let params: Vec<&str> = lambda.params.iter().map(|p| p.name.as_str()).collect();
                    write!(f, "fn({})", params.join(", "))
                }
                _ => write!(f, "fn"),
            },
            Ty::Generic(name) => write!(f, "{name}"),
            Ty::Order => write!(f, "Order"),
            Ty::Error => write!(f, "?"),
        }
    }
}
