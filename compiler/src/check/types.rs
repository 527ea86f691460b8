//! Types of RQL expressions, with the sizes of lists and the per-element costs of streams.

use crate::cost::{Cost, Poly};
use std::collections::BTreeMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Int,
    Float,
    Str,
    Bool,
    /// A row of the named table.
    Row(String),
    Record(Vec<(String, Ty)>),
    Option(Box<Ty>),
    /// A list of at most `size` elements.
    List(Box<Ty>, Poly),
    /// A lazily read, unbounded range.
    Stream(Box<StreamTy>),
    Fn(Box<FnTy>),
    /// A type parameter of a generic function.
    Generic(String),
    /// `desc` or `asc`, the order argument of `sort_by`.
    Order,
    /// Written where an error was already reported; fits everything.
    Error,
}

/// A stream: its elements, what reading one more element costs, and where
/// it reads (for rejections: "filter reads every row of User").
#[derive(Clone, Debug, PartialEq)]
pub struct StreamTy {
    pub elem: Ty,
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
}

/// A function value: parameter and result types and what one call costs.
#[derive(Clone, Debug, PartialEq)]
pub struct FnTy {
    pub params: Vec<Ty>,
    pub ret: Ty,
    pub latent: Cost,
}

impl Ty {
    pub fn list(elem: Ty, size: Poly) -> Ty {
        Ty::List(Box::new(elem), size)
    }

    pub fn option(inner: Ty) -> Ty {
        Ty::Option(Box::new(inner))
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }

    /// Whether either type may stand where the other is expected: the two
    /// sides of a comparison, arithmetic or `if`.
    pub fn compatible(&self, other: &Ty) -> bool {
        self.accepts(other) || other.accepts(self)
    }

    /// Whether a value of type `found` may be used where `self` is
    /// expected, ignoring sizes and costs (checked separately).
    pub fn accepts(&self, found: &Ty) -> bool {
        match (self, found) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Generic(a), Ty::Generic(b)) => a == b,
            (Ty::Option(a), Ty::Option(b)) => a.accepts(b),
            // A value fits an option of its type.
            (Ty::Option(a), b) => a.accepts(b),
            (Ty::List(a, _), Ty::List(b, _)) => a.accepts(b),
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
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b) && a.same_name(b),
        }
    }

    fn same_name(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Row(a), Ty::Row(b)) => a == b,
            _ => true,
        }
    }

    /// Replaces type parameters by their bindings.
    pub fn substitute_generics(&self, bindings: &BTreeMap<String, Ty>) -> Ty {
        match self {
            Ty::Generic(name) => bindings.get(name).cloned().unwrap_or_else(|| self.clone()),
            Ty::Option(inner) => Ty::option(inner.substitute_generics(bindings)),
            Ty::List(elem, size) => Ty::list(elem.substitute_generics(bindings), size.clone()),
            Ty::Record(fields) => Ty::Record(
                fields
                    .iter()
                    .map(|(n, t)| (n.clone(), t.substitute_generics(bindings)))
                    .collect(),
            ),
            Ty::Fn(f) => Ty::Fn(Box::new(FnTy {
                params: f
                    .params
                    .iter()
                    .map(|p| p.substitute_generics(bindings))
                    .collect(),
                ret: f.ret.substitute_generics(bindings),
                latent: f.latent.clone(),
            })),
            Ty::Stream(s) => Ty::Stream(Box::new(StreamTy {
                elem: s.elem.substitute_generics(bindings),
                per_element: s.per_element.clone(),
                source: s.source.clone(),
            })),
            other => other.clone(),
        }
    }

    /// Applies `f` to every size and cost inside the type.
    pub fn map_polys(&self, f: &dyn Fn(&Poly) -> Poly) -> Ty {
        let cost = |c: &Cost| Cost::new(f(&c.seeks), f(&c.rows));
        match self {
            Ty::Option(inner) => Ty::option(inner.map_polys(f)),
            Ty::List(elem, size) => Ty::list(elem.map_polys(f), f(size)),
            Ty::Record(fields) => Ty::Record(
                fields
                    .iter()
                    .map(|(n, t)| (n.clone(), t.map_polys(f)))
                    .collect(),
            ),
            Ty::Fn(func) => Ty::Fn(Box::new(FnTy {
                params: func.params.iter().map(|p| p.map_polys(f)).collect(),
                ret: func.ret.map_polys(f),
                latent: cost(&func.latent),
            })),
            Ty::Stream(s) => Ty::Stream(Box::new(StreamTy {
                elem: s.elem.map_polys(f),
                per_element: cost(&s.per_element),
                source: s.source.clone(),
            })),
            other => other.clone(),
        }
    }
}

impl Ty {
    /// The type without sizes: what compatibility compares, for messages.
    pub fn shape(&self) -> String {
        self.map_polys(&|_| Poly::zero())
            .to_string()
            .replace("; ≤ 0]", "]")
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int => write!(f, "Int"),
            Ty::Float => write!(f, "Float"),
            Ty::Str => write!(f, "String"),
            Ty::Bool => write!(f, "Bool"),
            Ty::Row(table) => write!(f, "{table}"),
            Ty::Record(fields) => {
                let fields: Vec<String> = fields.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                write!(f, "{{ {} }}", fields.join(", "))
            }
            Ty::Option(inner) => match **inner {
                Ty::Fn(_) => write!(f, "({inner})?"),
                _ => write!(f, "{inner}?"),
            },
            Ty::List(elem, size) => match size.max_value() {
                Some(max) => write!(f, "[{elem}; ≤ {max}]"),
                None => write!(f, "[{elem}; ≤ {size}]"),
            },
            Ty::Stream(stream) => write!(f, "stream {}", stream.elem),
            Ty::Fn(func) => {
                let params: Vec<String> = func.params.iter().map(|p| p.to_string()).collect();
                match params.as_slice() {
                    [one] => write!(f, "{one} -> {}", func.ret),
                    many => write!(f, "({}) -> {}", many.join(", "), func.ret),
                }
            }
            Ty::Generic(name) => write!(f, "{name}"),
            Ty::Order => write!(f, "Order"),
            Ty::Error => write!(f, "?"),
        }
    }
}
