//! The plan verifier: a program is checked whole before it is installed — its schema well-formed, every name and position resolved, every operator's shape, termination, and every claimed bound recomputed — and refused with a code naming what is wrong.
//!
//! A compiled program may come from a file a person edited or another
//! version of rqc wrote, and it is installed into a database other
//! programs share: like a bytecode verifier, the runtime trusts nothing in
//! it that it has not checked (spec/cost.md §12 lists the checks). The
//! passes, each in its own file:
//!
//! - `schema.rs`: the schema part is well-formed (names, positions,
//!   defaults, references, bounds, aggregates), so that every write's
//!   upkeep, which the runtime derives from the schema, is the upkeep the
//!   schema's declarations demand;
//! - `shapes.rs`: each entry point's parameters, and each operator's
//!   names, positions, arity and scoping, so nothing on the run path can
//!   panic or write a column the schema forbids (with `columns.rs`: every
//!   column a write or a row's read names by position is that column);
//! - `bounds.rs` (with `abstract_value.rs`, `scope.rs`, `inputs.rs`, `access.rs`,
//!   `combinators.rs`, `scalars.rs`, `narrowing.rs`, `narrowed_values.rs`,
//!   `elements.rs`, `apply.rs`):
//!   an abstract run of each plan that recomputes every operator's bound
//!   with the cost calculus (`rqc-cost`), refusing a read no limit bounds,
//!   a claim below the recomputed bound or above the ceiling, and
//!   applications that would nest without end.
//!
//! Nothing here reads or writes the store: a refused program leaves the
//! database as it was, byte for byte.

mod abstract_value;
mod access;
mod apply;
mod bounds;
mod claims;
mod columns;
mod combinators;
mod condition_reading;
mod elements;
mod heads;
mod inputs;
mod named;
mod narrowed_values;
mod narrowing;
mod scalars;
mod schema;
mod scope;
mod shapes;
mod sums;

use crate::error::{Result, RuntimeError};
use rqc_plan::{Bound, CompiledProgram, Entry, Node, Op, Schema};

/// Checks `program` whole (see the module's comment); the first fault
/// found is the error, with its code.
pub fn verify(program: &CompiledProgram) -> Result<()> {
    recomputed_bounds(program).map(|_| ())
}

/// As [`verify`], and each entry point's bound as the verifier recomputes
/// it from the plan, its commit counted (at most what it claims), in the
/// order of `program.entries`.
pub fn recomputed_bounds(program: &CompiledProgram) -> Result<Vec<Bound>> {
    // The passes recurse over plans nested up to `MAX_PLAN_DEPTH` levels.
    rqc_plan::stack::with_deep_stack(|| {
        schema::check_schema(&program.schema)?;
        shapes::check_entries(program)?;
        program
            .entries
            .iter()
            .map(|entry| bounds::check_bounds(&program.schema, entry))
            .collect()
    })
}

/// One entry point's plan checked as [`verify`] checks it within a
/// program whose schema is `schema` (the schema itself is not checked
/// here: it is checked with the whole program at install). What a
/// compiler asks before it calls an entry point accepted (`rqc`'s
/// `InstallCheck`): a plan the checker accepts and this refuses, such as
/// one past the verifier's steps (E0641), is then a rejection where it is
/// written, not a refused install.
pub fn verify_entry(schema: &Schema, entry: &Entry) -> Result<Bound> {
    rqc_plan::stack::with_deep_stack(|| {
        shapes::check_entry(schema, entry)?;
        bounds::check_bounds(schema, entry)
    })
}

/// A program's schema checked as [`verify`] checks it.
pub fn verify_schema(schema: &Schema) -> Result<()> {
    schema::check_schema(schema)
}

/// The code of a plan whose verification passes its limit of steps
/// (2,000,000): with [`TOO_DEEP`], a refusal a plan compiled from sources
/// may meet without a bug.
pub const TOO_MANY_STEPS: &str = "E0641";

/// The code of a plan whose lambda applications nest past the verifier's
/// limit (64): a lambda applied to itself, or functions passed on through
/// so many others.
pub const TOO_DEEP: &str = "E0640";

/// The longest name the verifier accepts, in bytes (the lexer's too).
pub use rqc_plan::MAX_NAME_BYTES;

/// Whether `name` is a name a schema or an entry point may use: 1 to
/// [`MAX_NAME_BYTES`] bytes, not starting with an ASCII digit, of ASCII
/// letters, digits and `_` and of any other character that is neither a
/// control character nor white space. So every identifier the language
/// allows is one, and none holds NUL, a line break, or the punctuation
/// (`:`, `.`, `/`) that tree names and qualified names are made with: two
/// names never name one tree.
pub fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| {
            if c.is_ascii() {
                c.is_ascii_alphanumeric() || c == '_'
            } else {
                !c.is_control() && !c.is_whitespace()
            }
        })
}

/// A name as a message shows it: escaped, so that a control character or
/// a very long name shows what it is.
fn shown(name: &str) -> String {
    match escaped(name) {
        (shown, Some(bytes)) => format!("`{shown}` ({bytes} bytes)"),
        (shown, None) => format!("`{shown}`"),
    }
}

/// A name escaped, its first 80 characters and `…` when longer, with its
/// length in bytes then.
fn escaped(name: &str) -> (String, Option<usize>) {
    let escaped: String = name.escape_debug().collect();
    if escaped.chars().count() > 80 {
        let head: String = escaped.chars().take(80).collect();
        (format!("{head}…"), Some(name.len()))
    } else {
        (escaped, None)
    }
}

/// The help every refusal ends with: where a good plan comes from.
const RECOMPILE: &str = "compile the program again with this rqc (`rqc compile SOURCES -o FILE`, or install the sources) and install that; a plan changed by hand must keep every check of spec/cost.md §12; nothing was installed";

/// A refusal of the schema part.
fn schema_fault(code: &'static str, what: String) -> RuntimeError {
    RuntimeError::new(
        code,
        format!("the program's schema is refused: {what}"),
        RECOMPILE,
    )
}

/// A refusal of an entry point's plan at `node` (`None`: the entry point
/// itself).
fn plan_fault(
    code: &'static str,
    entry: &Entry,
    node: Option<&Node>,
    what: String,
) -> RuntimeError {
    let place = match node {
        Some(node) => format!(
            "the plan of `{}.{}` is refused at operator {} ({}): ",
            shown_raw(&entry.module),
            shown_raw(&entry.name),
            node.id,
            operator_name(&node.op)
        ),
        None => format!(
            "the plan of `{}.{}` is refused: ",
            shown_raw(&entry.module),
            shown_raw(&entry.name)
        ),
    };
    RuntimeError::new(code, format!("{place}{what}"), RECOMPILE)
}

/// A name escaped for a message, without quotes (inside a qualified name
/// that is quoted whole).
fn shown_raw(name: &str) -> String {
    match escaped(name) {
        (shown, Some(bytes)) => format!("{shown} ({bytes} bytes)"),
        (shown, None) => shown,
    }
}

/// The operator's kind, as `explain` names it.
fn operator_name(op: &Op) -> &'static str {
    match op {
        Op::Const(_) => "Const",
        Op::Param(_) => "Param",
        Op::Var(_) => "Var",
        Op::Now => "Now",
        Op::Get { .. } => "Get",
        Op::GetUnique { .. } => "GetUnique",
        Op::Aggregate { .. } => "Aggregate",
        Op::Scan { .. } => "Scan",
        Op::Limit { .. } => "Limit",
        Op::Unreachable => "Unreachable",
        Op::Field(..) => "Field",
        Op::Column(..) => "Column",
        Op::Record(_) => "Record",
        Op::List(_) => "List",
        Op::Tuple(_) => "Tuple",
        Op::Unary(..) => "Unary",
        Op::Binary(..) => "Binary",
        Op::If(..) => "If",
        Op::Let(..) => "Let",
        Op::Seq(_) => "Seq",
        Op::Lambda(..) => "Lambda",
        Op::Apply(..) => "Apply",
        Op::Combinator(c, ..) => c.name(),
        Op::TopK { .. } => "TopK",
        Op::Insert { .. } => "Insert",
        Op::Update { .. } => "Update",
        Op::Upsert { .. } => "Upsert",
        Op::Delete { .. } => "Delete",
    }
}

#[cfg(test)]
mod tests {
    use super::is_name;

    #[test]
    fn a_long_name_is_cut_inside_its_quotes() {
        let long = "q".repeat(300);
        let quoted = super::shown(&long);
        assert_eq!(quoted.matches('`').count(), 2, "{quoted}");
        assert!(quoted.ends_with("…` (300 bytes)"), "{quoted}");
        let bare = super::shown_raw(&long);
        assert!(
            !bare.contains('`') && bare.ends_with("… (300 bytes)"),
            "{bare}"
        );
        assert_eq!(super::shown_raw("q"), "q");
    }

    #[test]
    fn names_are_identifiers_without_separators_or_controls() {
        for good in ["User", "_x", "by_author2", "é", "名前", "a·b"] {
            assert!(is_name(good), "{good}");
        }
        let long = "a".repeat(256);
        for bad in [
            "", "9lives", "a:b", "a.b", "a b", "a\0b", "a\nb", "a/b", "a-b", "\u{85}", &long,
        ] {
            assert!(!is_name(bad), "{bad:?}");
        }
    }
}
