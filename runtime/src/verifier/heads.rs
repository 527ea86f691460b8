//! An entry point's head: its name a name, its parameters' names valid and unique, their types well-formed (records of unique fields, column types that exist).

use super::{is_name, plan_fault, shown};
use crate::error::Result;
use rqc_plan::{ColumnType, Entry, ParamType};
use std::collections::HashSet;

/// The entry point's names and parameters.
pub(super) fn check_head(entry: &Entry) -> Result<()> {
    let fault = |code, what: String| Err(plan_fault(code, entry, None, what));
    if !is_name(&entry.name) {
        return fault(
            "E0610",
            format!("its name {} is not a name", shown(&entry.name)),
        );
    }
    // A module without a `module` line is named after its file's stem
    // (`my-app`): any text but empty, very long, or with a control
    // character (a message prints it).
    let module_fine = !entry.module.is_empty()
        && entry.module.len() <= 4 * super::MAX_NAME_BYTES
        && !entry.module.chars().any(char::is_control);
    if !module_fine {
        return fault(
            "E0610",
            format!("its module {} is not a name", shown(&entry.module)),
        );
    }
    let mut names = HashSet::new();
    for (i, param) in entry.params.iter().enumerate() {
        if !is_name(&param.name) {
            return fault(
                "E0610",
                format!("parameter {i} is named {}, not a name", shown(&param.name)),
            );
        }
        if !names.insert(param.name.as_str()) {
            return fault(
                "E0611",
                format!("two parameters are named {}", shown(&param.name)),
            );
        }
        let types_fine = match &param.ty {
            ParamType::Scalar(ty) | ParamType::List(ty) => column_type_fine(ty),
            ParamType::Records(fields) => {
                let mut fields_seen = HashSet::new();
                fields.iter().all(|(name, ty)| {
                    is_name(name) && fields_seen.insert(name.as_str()) && column_type_fine(ty)
                })
            }
        };
        if !types_fine {
            return fault(
                "E0626",
                format!("parameter {} has a malformed type", shown(&param.name)),
            );
        }
        // `n: Int >= a <= k`: a lower end only on an `Int`, at most the
        // upper (no argument would fit an empty range; the checker refuses
        // it, E0320).
        if let Some(least) = param.min {
            let int = match &param.ty {
                ParamType::Scalar(ColumnType::Optional(inner)) => **inner == ColumnType::Int,
                ParamType::Scalar(ty) => *ty == ColumnType::Int,
                _ => false,
            };
            if !int || param.max.is_some_and(|most| most < least) {
                return fault(
                    "E0626",
                    format!(
                        "parameter {} has a lower end {least} that is not an `Int`'s, or above its upper end",
                        shown(&param.name)
                    ),
                );
            }
        }
        if let Some(n) = param.max_param {
            let counts = entry
                .params
                .get(n)
                .is_some_and(|p| n != i && matches!(p.ty, ParamType::Scalar(ColumnType::Int)));
            if !counts || matches!(param.ty, ParamType::Scalar(_)) {
                return fault(
                    "E0626",
                    format!(
                        "parameter {}'s length is bounded by parameter {n}, which is not another `Int` parameter",
                        shown(&param.name)
                    ),
                );
            }
        }
    }
    Ok(())
}

/// A column type as the language writes them: at most one `?`.
fn column_type_fine(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Optional(inner) => !matches!(**inner, ColumnType::Optional(_)),
        _ => true,
    }
}
