//! A value given the options its declared type names: `fn f(t: T) -> T? = t` returns a `T?`, not the `T` its body is, so callers may `unwrap_or` it.
//!
//! A value fits an option of its type (`Ty::accepts`), and at run time a
//! present option is its value: nothing changes in what runs. Only the
//! type callers see does, at every position the declaration makes an
//! option (a result, a `let`, a record's field, a list's elements); the
//! measures stay the value's.

use super::types::Ty;

impl Ty {
    /// This type with an option wherever `declared` (a type it was checked
    /// to fit) has one and it has none.
    pub fn with_declared_options(&self, declared: &Ty) -> Ty {
        match (declared, self) {
            (_, Ty::Error) => Ty::Error,
            (Ty::Option(d), Ty::Option(found)) => Ty::option(found.with_declared_options(d)),
            (Ty::Option(d), found) => Ty::option(found.with_declared_options(d)),
            // `[Int?]` declared over `[Int]`: the elements are options,
            // which have no least (`list_with` keeps extremes of `Int`s).
            (Ty::List(d, _, _), Ty::List(found, size, extremes)) => Ty::list_with(
                found.with_declared_options(d),
                size.clone(),
                extremes.as_deref().cloned(),
            ),
            (Ty::Record(d), Ty::Record(found)) => Ty::Record(
                found
                    .iter()
                    .map(|(name, t)| match d.iter().find(|(n, _)| n == name) {
                        Some((_, dt)) => (name.clone(), t.with_declared_options(dt)),
                        None => (name.clone(), t.clone()),
                    })
                    .collect(),
            ),
            _ => self.clone(),
        }
    }
}
