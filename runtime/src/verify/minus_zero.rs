//! `verify` and `-0.0`: the entries an older rqc stored with `-0.0`, read as `0.0` and listed once per tree (E0552).

use super::{Check, Entries};
use crate::encoding::key::{canonical_key, key_holds_minus_zero, stored_components};
use crate::encoding::row::{decode_row, encode_row, row_holds_minus_zero};
use rqc_plan::Value;

/// The keys of a tree read in chunks that held `-0.0`: how many, and the
/// first few to show (E0552, listed once per tree).
#[derive(Default)]
pub(super) struct MinusZero {
    pub(super) count: usize,
    pub(super) shown: Vec<Vec<u8>>,
}

impl MinusZero {
    const SHOWN: usize = 5;

    pub(super) fn note(&mut self, found: Vec<Vec<u8>>) {
        self.count += found.len();
        let room = Self::SHOWN.saturating_sub(self.shown.len());
        self.shown.extend(found.into_iter().take(room));
    }
}

impl Check<'_> {
    /// `entries` of `tree` as this rqc reads them: a `-0.0` an older rqc
    /// stored in a key (`descending` flipping its components) or, for a
    /// tree of rows of `columns` columns, in a row, is listed (E0552,
    /// naming the tree and its keys) and read as `0.0`, so that the other
    /// checks compare like with like.
    pub(super) fn canonical(
        &mut self,
        tree: &str,
        entries: Entries,
        descending: &[bool],
        columns: Option<usize>,
    ) -> Entries {
        let (entries, found) = canonical_entries(entries, descending, columns);
        let mut minus_zero = MinusZero::default();
        minus_zero.note(found);
        self.minus_zero(tree, &minus_zero, descending);
        entries
    }

    /// E0552 for the keys of `tree` that held `-0.0`, when any did.
    pub(super) fn minus_zero(&mut self, tree: &str, found: &MinusZero, descending: &[bool]) {
        if found.count == 0 {
            return;
        }
        let shown: Vec<String> = found
            .shown
            .iter()
            .map(|key| show_stored_key(key, descending))
            .collect();
        let n = found.count;
        self.problem_coded(
            "E0552",
            format!(
                "tree `{tree}`: {n} entr{} hold{} -0.0, which an older rqc stored and this one reads as 0.0 (key{} {}{})",
                if n == 1 { "y" } else { "ies" },
                if n == 1 { "s" } else { "" },
                if n == 1 { "" } else { "s" },
                shown.join(", "),
                if n > shown.len() { ", …" } else { "" }
            ),
        );
    }
}

/// `entries` with every stored `-0.0` read as `0.0` (see
/// [`Check::canonical`]), and the keys that held one, as stored.
pub(crate) fn canonical_entries(
    entries: Entries,
    descending: &[bool],
    columns: Option<usize>,
) -> (Entries, Vec<Vec<u8>>) {
    let mut found = Vec::new();
    let mut out = Entries::new();
    for (key, value) in entries {
        let in_key = key_holds_minus_zero(&key, descending);
        let in_value = columns.is_some_and(|n| row_holds_minus_zero(&value, n));
        if !in_key && !in_value {
            out.insert(key, value);
            continue;
        }
        let canonical = match in_key {
            true => canonical_key(&key, descending).unwrap_or_else(|| key.clone()),
            false => key.clone(),
        };
        let value = match columns {
            Some(n) if in_value => decode_row(&value, n)
                .and_then(|row| encode_row(&row))
                .unwrap_or(value),
            _ => value,
        };
        found.push(key);
        out.insert(canonical, value);
    }
    (out, found)
}

/// A key as stored, for a message: its components, `-0.0` shown as such.
fn show_stored_key(key: &[u8], descending: &[bool]) -> String {
    let Some(values) = stored_components(key, descending) else {
        return "(not readable)".into();
    };
    let parts: Vec<String> = values
        .iter()
        .map(|v| match v {
            Value::Float(x) => format!("{x:?}"),
            other => other.to_string(),
        })
        .collect();
    format!("({})", parts.join(", "))
}
