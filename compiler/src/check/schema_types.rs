//! From written types and column types to checker types.

use super::expr::Checker;
use super::modules::Symbol;
use super::types::{FnTy, StreamSource, StreamTy, Ty};
use crate::cost::{Cost, Poly};
use crate::syntax::ast::{Ident, Type, TypeKind};
use rqc_plan::ColumnType;

pub fn column_ty(ty: &ColumnType) -> Ty {
    match ty {
        ColumnType::Int => Ty::Int,
        ColumnType::Float => Ty::Float,
        ColumnType::String => Ty::Str,
        ColumnType::Bool => Ty::Bool,
        ColumnType::Optional(inner) => Ty::option(column_ty(inner)),
    }
}

/// The column type a checker type stores as, if it is one.
pub fn as_column(ty: &Ty) -> Option<ColumnType> {
    match ty {
        Ty::Int => Some(ColumnType::Int),
        Ty::Float => Some(ColumnType::Float),
        Ty::Str => Some(ColumnType::String),
        Ty::Bool => Some(ColumnType::Bool),
        Ty::Option(inner) => Some(ColumnType::Optional(Box::new(as_column(inner)?))),
        _ => None,
    }
}

/// Whether a written name is a type parameter: declared in `<…>`, or a
/// single capital letter that names nothing else (`fn f(xs: [T])`).
pub fn is_type_parameter(name: &str, generics: &[Ident]) -> bool {
    generics.iter().any(|g| g.name == name)
        || (name.len() == 1 && name.chars().all(|c| c.is_ascii_uppercase()))
}

impl Checker<'_> {
    /// A written type as a checker type; list sizes and function costs are
    /// zero here and set by whoever knows them (parameters, calls).
    pub fn resolve_type(&mut self, ty: &Type, generics: Option<&[Ident]>) -> Ty {
        match &ty.kind {
            TypeKind::Named(name) => match name.name.as_str() {
                "Int" => Ty::Int,
                "Float" => Ty::Float,
                "String" => Ty::Str,
                "Bool" => Ty::Bool,
                other => match self.index.lookup(self.module, other) {
                    Some(Symbol::Table(table)) => Ty::Row(table.clone()),
                    _ if is_type_parameter(other, generics.unwrap_or(&[])) => {
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
            TypeKind::List(elem, _) => Ty::list(self.resolve_type(elem, generics), Poly::zero()),
            TypeKind::Stream(elem) => Ty::Stream(Box::new(StreamTy {
                elem: self.resolve_type(elem, generics),
                per_element: Cost::constant(0, 1),
                source: StreamSource {
                    table: String::new(),
                    description: "a stream parameter".into(),
                    prefix_columns: Vec::new(),
                    next_column: None,
                    access: String::new(),
                },
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
                latent: Cost::zero(),
            })),
        }
    }
}
