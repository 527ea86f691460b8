//! A definition's parameters: each one's type under its declared ends and measures — variables its callers fix in a function, the declared bounds the runtime holds arguments to in an entry point.

use super::expr::Checker;
use super::measures::abstract_measures;
use super::types::Ty;
use crate::cost::Interval;
use crate::cost::{Poly, Var, CEILING};
use crate::syntax::ast::{Def, DefKind, SizeBound, TypeKind};

impl Checker<'_> {
    /// A parameter's type with its measures. In a function they are
    /// variables, fixed at each call; in an entry point they come from the
    /// declared bounds (and the caller's values are checked against them).
    /// Declared ends of an `Int` (`>= a`, `<= b`) or a `String` (`<= k`
    /// bytes) hold in both: a function's callers must prove their
    /// arguments within them (`calls.rs`).
    pub(super) fn parameter(&mut self, def: &Def, param: &crate::syntax::ast::Param, ty: Ty) -> Ty {
        let name = param.name.name.clone();
        let entry = def.kind != DefKind::Fn;
        let (least, most) = self.declared_ends(param, &ty);
        // `n: Int? <= 10`: the ends hold for the value an option holds.
        if let Ty::Option(inner) = &ty {
            let declared = least.is_some() || most.is_some();
            if declared && matches!(**inner, Ty::Int(_) | Ty::Str(_)) {
                let held = bounded_scalar(entry, &name, (**inner).clone(), least, most);
                return Ty::option(held);
            }
        }
        if !entry || matches!(ty, Ty::Int(_) | Ty::Str(_)) {
            return bounded_scalar(entry, &name, ty, least, most);
        }
        match ty {
            Ty::List(elem, _, _) => {
                let size = match &param.ty.kind {
                    TypeKind::List(_, Some(SizeBound::Literal(n, span))) => {
                        let max = (*n).max(0) as u64;
                        if max > CEILING {
                            self.error(
                                "E0308",
                                format!("`{name}` may hold {max} elements, above the ceiling of {CEILING}"),
                                *span,
                                "too large to prove anything",
                            )
                            .help
                            .push(format!("declare a smaller maximum: `{name}: [{elem}; <= 1000]`"));
                        }
                        Poly::var(Var::param(&format!("|{name}|"), Some(max)))
                    }
                    TypeKind::List(_, Some(SizeBound::Name(other))) => {
                        let earlier = self
                            .scope
                            .get(&other.name)
                            .and_then(|l| l.ty.interval())
                            .filter(|i| i.max_value().is_some())
                            .map(|i| i.hi.clone());
                        match earlier {
                            Some(size) => size,
                            None => {
                                self.error(
                                    "E0307",
                                    format!(
                                        "`{}` is not an earlier `Int` parameter with a bound",
                                        other.name
                                    ),
                                    other.span,
                                    "unknown bound",
                                )
                                .help
                                .push(format!("write a number: `{name}: [Int; <= 50]`"));
                                Poly::unbounded(&format!("|{name}|"))
                            }
                        }
                    }
                    _ => {
                        self.error("E0303", format!("the list parameter `{name}` has no bound"), param.ty.span, "unbounded list")
                            .help
                            .push(format!("an entry point's list needs a maximum length: `{name}: [{elem}; <= 50]`"));
                        Poly::unbounded(&format!("|{name}|"))
                    }
                };
                // The elements are the caller's values: nothing bounds them.
                let elem = match *elem {
                    Ty::Int(_) => Ty::any_int(&format!("{name}[]")),
                    other => other,
                };
                Ty::list(elem, size)
            }
            Ty::Fn(func) => {
                self.error("E0305", format!("an entry point cannot take the function `{name}`"), param.ty.span, "a function parameter")
                    .help
                    .push("queries and mutations take values from outside; move the function into a `fn` they call".into());
                Ty::Fn(func)
            }
            other => ty_named(other, &name),
        }
    }

    /// The ends declared for parameter `param` of type `ty`: `>= a` and
    /// `<= b` of an `Int` (or `Int?`), `<= k` of a `String` (or
    /// `String?`), numbers in both. Reported:
    /// an end on another type (E0306), a name for a number (E0307), a
    /// lower end above the upper (E0320), a negative length (E0241).
    fn declared_ends(
        &mut self,
        param: &crate::syntax::ast::Param,
        ty: &Ty,
    ) -> (Option<i64>, Option<i64>) {
        let name = &param.name.name;
        // An option's ends are its value's.
        let ty = match ty {
            Ty::Option(inner) if matches!(**inner, Ty::Int(_) | Ty::Str(_)) => inner,
            other => other,
        };
        let string = matches!(ty, Ty::Str(_));
        if param.bound.is_some() && !ty.is_int() && !string && !ty.is_error() {
            self.error(
                "E0306",
                format!("only an `Int` or `String` parameter takes `<= N`, and `{name}` is `{ty}`"),
                param.span,
                "bound on a non-Int",
            )
            .help
            .push(match &param.ty.kind {
                TypeKind::List(elem, _) => format!(
                    "bound a list by its type instead: `{name}: [{}; <= 50]`",
                    crate::syntax::printer::print_type(elem)
                ),
                _ => "only `Int` and `String` parameters and lists take a bound: remove `<= N`"
                    .to_string(),
            });
            return (None, None);
        }
        if let Some((_, span)) = param.lower {
            if !ty.is_int() && !ty.is_error() {
                self.error(
                    "E0306",
                    format!("only an `Int` parameter takes `>= N`, and `{name}` is `{ty}`"),
                    span,
                    "lower end on a non-Int",
                )
                .help
                .push("remove `>= N`".to_string());
                return (None, None);
            }
        }
        let most = match &param.bound {
            Some(SizeBound::Literal(n, _)) => Some(*n),
            Some(SizeBound::Name(other)) => {
                self.error(
                    "E0307",
                    "a parameter's bound is a number",
                    other.span,
                    "a name",
                )
                .help
                .push(if string {
                    format!("write a literal: `{name}: String <= 100`")
                } else {
                    format!("write a literal: `{name}: Int <= 100`")
                });
                None
            }
            None => None,
        };
        if let (true, Some(SizeBound::Literal(n, span))) = (string, &param.bound) {
            if *n < 0 || n.unsigned_abs() > CEILING {
                self.error(
                    "E0241",
                    format!("`{name}`'s length bound must be between 0 and {CEILING} bytes"),
                    *span,
                    "out of range",
                )
                .help
                .push(format!("write a length in bytes: `{name}: String <= 200`"));
                return (None, None);
            }
        }
        let least = param.lower.map(|(n, _)| n);
        if let (Some(low), Some(high)) = (least, most) {
            if low > high {
                let span = param.lower.map_or(param.span, |(_, s)| s);
                self.error(
                    "E0320",
                    format!("no value of `{name}` is both `>= {low}` and `<= {high}`"),
                    span,
                    "above the upper end",
                )
                .help
                .push(format!("both ends are included: write `{name}: Int >= {high} <= {low}`, or lower the `>=`"));
                return (None, None);
            }
        }
        (least, most)
    }
}

/// An entry point's scalar parameter that is not an `Int`: its measures
/// (an optional `Int` inside) are the caller's, unbounded.
fn ty_named(ty: Ty, name: &str) -> Ty {
    match ty {
        Ty::Option(inner) => Ty::option(ty_named(*inner, name)),
        Ty::Int(_) => Ty::any_int(name),
        other => other,
    }
}

/// An `Int` or `String` parameter's type under its declared ends: in a
/// function, measures fixed at each call within them (callers prove their
/// arguments are, `passing.rs`); in an entry point, the ends the runtime
/// holds every argument to (E0522). Another type is returned as it is
/// (a function's with its measures abstracted).
fn bounded_scalar(entry: bool, name: &str, ty: Ty, least: Option<i64>, most: Option<i64>) -> Ty {
    if !entry {
        return match abstract_measures(&ty, name) {
            Ty::Int(interval) => Ty::Int(Interval::new(interval.hi, interval.lo, least, most)),
            Ty::Str(_) if most.is_some() => {
                Ty::Str(Poly::constant(most.unwrap_or(0).max(0).unsigned_abs()))
            }
            other => other,
        };
    }
    match ty {
        Ty::Int(_) => Ty::Int(Interval::parameter(name, least, most)),
        Ty::Str(_) => match most {
            Some(max) => Ty::Str(Poly::var(Var::param(
                &format!("|{name}|"),
                Some(max.max(0).unsigned_abs()),
            ))),
            None => Ty::string(),
        },
        other => other,
    }
}

/// Each list a parameter's type declares a `<= n` of (`xs: [Int; <= 5]`),
/// the parameter itself or a field of a record it is (`r: {xs: [Int; <=
/// 5]}`, through records in records) or of its list's elements (`rs:
/// [{xs: [Int; <= 5]}; <= 3]`, the step [`ELEMENTS`]), seen through
/// options (`xs: [Int; <= 5]?`, whose list has the same measure): the
/// steps on the way to it and `n`.
pub(super) fn declared_list_maxima(ty: &crate::syntax::ast::Type) -> Vec<(Vec<String>, u64)> {
    match &ty.kind {
        TypeKind::List(elem, bound) => {
            let own = match bound {
                Some(SizeBound::Literal(n, _)) => Some((Vec::new(), (*n).max(0).unsigned_abs())),
                _ => None,
            };
            let inner = declared_list_maxima(elem).into_iter().map(|(mut path, n)| {
                path.insert(0, ELEMENTS.to_string());
                (path, n)
            });
            own.into_iter().chain(inner).collect()
        }
        TypeKind::Option(inner) => declared_list_maxima(inner),
        // A function's result (`g: Int -> [Int; <= 1]`): each function
        // given must return within it, and the body may rely on it. Not
        // a result holding functions (`Int -> Int -> [Int; <= 1]`), which
        // a call resolves only where they are applied.
        TypeKind::Function(_, ret) if holds_function(ret) => Vec::new(),
        TypeKind::Function(_, ret) => declared_list_maxima(ret)
            .into_iter()
            .map(|(mut path, n)| {
                path.insert(0, RESULT.to_string());
                (path, n)
            })
            .collect(),
        TypeKind::Record(fields) => fields
            .iter()
            .flat_map(|(field, ty)| {
                declared_list_maxima(ty).into_iter().map(|(mut path, n)| {
                    path.insert(0, field.name.clone());
                    (path, n)
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether the written type `ty` holds a function type anywhere.
fn holds_function(ty: &crate::syntax::ast::Type) -> bool {
    match &ty.kind {
        TypeKind::Function(..) => true,
        TypeKind::Named(_) => false,
        TypeKind::Option(inner) | TypeKind::List(inner, _) | TypeKind::Stream(inner) => {
            holds_function(inner)
        }
        TypeKind::Record(fields) => fields.iter().any(|(_, t)| holds_function(t)),
    }
}

/// The step from a list to its elements in a path of
/// [`declared_list_maxima`] (no field is named so).
pub(super) const ELEMENTS: &str = "[]";

/// The step from a function to its result in a path of
/// [`declared_list_maxima`] (no field is named so), as
/// `measures::abstract_measures` names it: `g()`.
pub(super) const RESULT: &str = "()";

/// The name `measures::abstract_measures` gives the length of the list
/// `steps` reach from the parameter `param`: `|r.xs|`, `|rs[].xs|`.
pub(super) fn length_measure(param: &str, steps: &[String]) -> String {
    let mut path = param.to_string();
    for step in steps {
        if step != ELEMENTS && step != RESULT {
            path.push('.');
        }
        path.push_str(step);
    }
    format!("|{path}|")
}
