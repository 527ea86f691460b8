//! From written types and column types to checker types.

use super::expr::Checker;
use super::modules::Symbol;
use super::types::{FnTy, StreamSource, StreamTy, Ty};
use crate::cost::{Cost, Poly};
use crate::syntax::ast::{Ident, Type, TypeKind};
use rqc_plan::{Column, ColumnType};

/// The type of a column's values: data nothing bounds, so an `Int`'s range
/// is unbounded both ways, named by `label` (`Cfg.lim`) for messages, and
/// a `String` as long as its declared length bound (`max_len` bytes) or
/// any length.
pub fn column_ty(ty: &ColumnType, label: &str, max_len: Option<u64>) -> Ty {
    match ty {
        ColumnType::Int => Ty::any_int(label),
        ColumnType::Float => Ty::Float,
        ColumnType::String => match max_len {
            Some(max) => Ty::Str(Poly::constant(max)),
            None => Ty::string(),
        },
        ColumnType::Bool => Ty::Bool,
        ColumnType::Optional(inner) => Ty::option(column_ty(inner, label, max_len)),
    }
}

/// The type of column `column` of `table`, labelled `table.column`. Made
/// for every column an access, a field or a write names: each is built
/// (its label formatted, its variables interned) once per thread, and
/// built again when the column's type changed.
pub fn table_column_ty(table: &str, column: &Column) -> Ty {
    type Made = std::collections::HashMap<
        String,
        std::collections::HashMap<String, (Column, Ty), crate::cost::NameHash>,
        crate::cost::NameHash,
    >;
    thread_local! {
        static MADE: std::cell::RefCell<Made> = Default::default();
    }
    MADE.with(|made| {
        if let Some((made_for, made_ty)) =
            made.borrow().get(table).and_then(|t| t.get(&column.name))
        {
            if made_for.ty == column.ty && made_for.max_len == column.max_len {
                return made_ty.clone();
            }
        }
        let label = format!("{table}.{}", column.name);
        let built = column_ty(&column.ty, &label, column.max_len);
        made.borrow_mut()
            .entry(table.to_string())
            .or_default()
            .insert(column.name.clone(), (column.clone(), built.clone()));
        built
    })
}

/// A cost nothing bounds, named for messages.
fn unknown_cost(what: &str) -> Cost {
    Cost::new(
        Poly::unbounded(&format!("seeks({what})")),
        Poly::unbounded(&format!("rows({what})")),
        Poly::unbounded(&format!("trips({what})")),
    )
    .with_steps(Poly::unbounded(&format!("steps({what})")))
}

/// The column type a checker type stores as, if it is one.
pub fn as_column(ty: &Ty) -> Option<ColumnType> {
    match ty {
        Ty::Int(_) => Some(ColumnType::Int),
        Ty::Float => Some(ColumnType::Float),
        Ty::Str(_) => Some(ColumnType::String),
        Ty::Bool => Some(ColumnType::Bool),
        Ty::Option(inner) => Some(ColumnType::Optional(Box::new(as_column(inner)?))),
        _ => None,
    }
}

/// A definition's declared type parameters (`<A, B>`), found by name: a
/// list searched when short, a set past that (a definition of thousands
/// searched them once per written type).
pub struct TypeParams<'d> {
    list: &'d [Ident],
    set: Option<std::collections::HashSet<&'d str>>,
}

impl<'d> TypeParams<'d> {
    pub fn new(list: &'d [Ident]) -> TypeParams<'d> {
        let set = (list.len() > 16).then(|| list.iter().map(|g| g.name.as_str()).collect());
        TypeParams { list, set }
    }

    /// Whether a written name is a type parameter: declared in `<…>`, or a
    /// single capital letter that names nothing else (`fn f(xs: [T])`).
    pub fn contains(&self, name: &str) -> bool {
        let declared = match &self.set {
            Some(set) => set.contains(name),
            None => self.list.iter().any(|g| g.name == name),
        };
        declared || (name.len() == 1 && name.chars().all(|c| c.is_ascii_uppercase()))
    }
}

impl Checker<'_> {
    /// A written type as a checker type. Its measures (list sizes, integer
    /// ranges, function and stream costs) are unknown — unbounded — here:
    /// a definition's parameters get variables in their place
    /// (`measures::abstract_measures`), an entry point's its declared bounds.
    pub fn resolve_type(&mut self, ty: &Type, generics: Option<&TypeParams<'_>>) -> Ty {
        match &ty.kind {
            TypeKind::Named(name) => match name.name.as_str() {
                "Int" => Ty::any_int("a declared Int"),
                "Float" => Ty::Float,
                "String" => Ty::string(),
                "Bool" => Ty::Bool,
                other => match self.index.lookup(self.module, other) {
                    Some(Symbol::Table(table)) => Ty::row(table.clone()),
                    _ if generics.unwrap_or(&TypeParams::new(&[])).contains(other) => {
                        Ty::Generic(other.to_string())
                    }
                    _ => {
                        let d = self.error(
                            "E0410",
                            format!("no type named `{other}`"),
                            name.span,
                            "unknown type",
                        );
                        d.help.push(
                            "the types are Int, Float, String, Bool, table rows, records, `T?`, `[T]`, `stream T` and `A -> B`; a type parameter is declared as `fn f<T>(…)`".into(),
                        );
                        Ty::Error
                    }
                },
            },
            TypeKind::Option(inner) => Ty::option(self.resolve_type(inner, generics)),
            // A declared `<= n` is the list's length where nothing measures
            // it otherwise: a returned function's parameter (`-> [Int; <= 2]
            // -> Int`), which its body may rely on and each application is
            // held to (`fits`, E0419). A parameter's own and an entry
            // point's are measured apart (`measures.rs`, `definition.rs`).
            TypeKind::List(elem, size) => {
                let length = match size {
                    Some(crate::syntax::ast::SizeBound::Literal(n, _)) => {
                        Poly::constant((*n).max(0).unsigned_abs())
                    }
                    _ => Poly::unbounded("length"),
                };
                Ty::list(self.resolve_type(elem, generics), length)
            }
            TypeKind::Stream(elem) => Ty::Stream(Box::new(StreamTy {
                elem: self.resolve_type(elem, generics),
                open: unknown_cost("opening"),
                per_element: unknown_cost("each element"),
                source: StreamSource::unnamed(STREAM_PARAMETER),
            })),
            TypeKind::Record(fields) => Ty::Record(
                fields
                    .iter()
                    .map(|(name, t)| (name.name.clone(), self.resolve_type(t, generics)))
                    .collect(),
            ),
            TypeKind::Function(params, ret) => Ty::Fn(Box::new(FnTy {
                params: params
                    .iter()
                    .map(|p| self.resolve_type(p, generics))
                    .collect(),
                ret: self.resolve_type(ret, generics),
                latent: unknown_cost("a call"),
                proves: None,
            })),
        }
    }
}

/// The description of a stream a declared type holds (a `stream T`
/// parameter, or a declared result): its rows are the caller's.
pub(super) const STREAM_PARAMETER: &str = "a stream parameter";
