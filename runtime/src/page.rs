//! Keyset pages: which queries are pageable, the continuation token a page ends with, and the cursor a paged run follows.
//!
//! A query is **pageable** when its result is a stream read in index order
//! and limited by `take`: its root is `take(n)` over a `Scan` stream, with
//! any `map`s between (`T.index[…] |> map(f) |> take(n)`), and `reverse`
//! or `sort_by` by the stream's column (a reverse read). Its next page is
//! the same query, with the same arguments and the same bound, whose range
//! starts just past the index entry the page ended on (read backwards: ends
//! just before it). Nothing else is
//! pageable (E0532): a `skip` would skip again on every page, and any other
//! result has no single index order to continue in.
//!
//! A token is opaque text: hex of `version · fingerprint · arguments ·
//! last entry key · crc32`. The fingerprint is a checksum of the entry's
//! name, parameters and plan, so a token of another query, or of this
//! query before the program changed, is refused (E0534); a damaged token
//! fails its checksum (E0533); a token of another token version is E0535.
//! A token never widens a read: its key only moves the start of the same
//! range forward, or a reverse read's end back (a forged key outside the
//! range reads nothing).

use crate::engine::Output;
use crate::error::{Result, RuntimeError};
use rqc_plan::{Combinator, Entry, EntryKind, Node, Op, Shape, Value};

/// The token format this rqc writes and reads.
const TOKEN_VERSION: u8 = 1;

/// A page of a pageable query: its output, and the token of the next page
/// (`None` when this page came out short, so the range is exhausted).
#[derive(Debug)]
pub struct Page {
    /// The page's rows, with the seeks and rows its run read.
    pub output: Output,
    /// What resumes the scan after this page, `None` on the last page:
    /// pass it back for the next page.
    pub token: Option<String>,
}

pub(crate) use crate::scan::PageCursor;

/// The scan a pageable entry's pages walk (its node id), or E0532.
pub fn pageable_scan(entry: &Entry) -> Result<u32> {
    let refuse = |why: &str| {
        RuntimeError::new(
            "E0532",
            format!("`{}` is not pageable: {why}", entry.name),
            "a pageable query ends in a stream read in index order and limited by `take`: `T.index[…] |> take(n)` (a `map` may come between); run it with `run` instead",
        )
    };
    if entry.kind != EntryKind::Query {
        return Err(refuse("it is a mutation"));
    }
    let Op::Combinator(Combinator::Take, Shape::Stream, args) = &entry.root.op else {
        return Err(refuse("its result is not `take(n)` over a stream"));
    };
    let mut input: &Node = args
        .first()
        .ok_or_else(|| crate::error::internal("`take` without its input"))?;
    loop {
        match &input.op {
            Op::Combinator(
                Combinator::Map | Combinator::Reverse | Combinator::SortBy { .. },
                Shape::Stream,
                inner,
            ) => {
                input = inner
                    .first()
                    .ok_or_else(|| crate::error::internal("`map` without its input"))?;
            }
            Op::Combinator(Combinator::Skip, ..) => {
                return Err(refuse(
                    "it skips rows, and every page would skip them again",
                ))
            }
            Op::Scan { stream: true, .. } => return Ok(input.id),
            _ => return Err(refuse("its `take` does not read an index range directly")),
        }
    }
}

/// Plans up to this deep print on the caller's stack.
const SHALLOW_PLAN: usize = 64;

/// What identifies the query a token continues: its name, parameters and
/// plan, and the schema generation it was made under (so a changed program
/// refuses an old token, and so does a migration that redefined the index
/// the pages walk, whose positions the token's key would misplace).
fn fingerprint(entry: &Entry, generation: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(generation);
    hasher.update(b"\0");
    hasher.update(entry.module.as_bytes());
    hasher.update(b"\0");
    hasher.update(entry.name.as_bytes());
    hasher.update(b"\0");
    // JSON, or where it has no form (a NaN constant) the debug form: never
    // nothing, so no two plans share a fingerprint by being unprintable.
    let params = serde_json::to_string(&entry.params).unwrap_or(format!("{:?}", entry.params));
    let print = || serde_json::to_string(&entry.root).unwrap_or(format!("{:?}", entry.root));
    // Printing recurses once per level: a deep plan is printed on the
    // deep stack (this thread's transaction is done with by now).
    let root = if entry.root.depth() > SHALLOW_PLAN {
        rqc_plan::stack::with_deep_stack(print)
    } else {
        print()
    };
    hasher.update(params.as_bytes());
    hasher.update(b"\0");
    hasher.update(root.as_bytes());
    hasher.finalize()
}

/// The token of the page after one that ended on entry `last`.
pub(crate) fn encode_token(
    entry: &Entry,
    generation: &[u8],
    args: &[Value],
    last: &[u8],
) -> String {
    let args_json = serde_json::to_vec(&Value::List(args.to_vec()).to_json()).unwrap_or_default();
    let mut bytes = vec![TOKEN_VERSION];
    bytes.extend(fingerprint(entry, generation).to_be_bytes());
    bytes.extend((args_json.len() as u32).to_be_bytes());
    bytes.extend(&args_json);
    bytes.extend((last.len() as u32).to_be_bytes());
    bytes.extend(last);
    bytes.extend(crc32fast::hash(&bytes).to_be_bytes());
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A token's arguments and resume key, checked to be this entry's.
pub(crate) fn decode_token(
    entry: &Entry,
    generation: &[u8],
    token: &str,
) -> Result<(Vec<Value>, Vec<u8>)> {
    let damaged = |why: &str| {
        RuntimeError::new(
            "E0533",
            format!("the page token is damaged: {why}"),
            "pass the token exactly as the previous page gave it, or start again from the first page",
        )
    };
    let bytes = hex(token.trim()).ok_or_else(|| damaged("it is not a token rqc wrote"))?;
    if bytes.len() < 1 + 4 + 4 + 4 + 4 {
        return Err(damaged("it is too short"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body).to_be_bytes() != sum {
        return Err(damaged("its checksum does not match"));
    }
    if body[0] != TOKEN_VERSION {
        return Err(RuntimeError::new(
            "E0535",
            format!(
                "the page token is of token format {}; this rqc reads format {TOKEN_VERSION}",
                body[0]
            ),
            "start again from the first page with this rqc",
        ));
    }
    if body[1..5] != fingerprint(entry, generation).to_be_bytes() {
        return Err(RuntimeError::new(
            "E0534",
            format!(
                "the page token belongs to another query, or to `{}` as another program defined it",
                entry.name
            ),
            format!(
                "pass a token that a page of `{}` gave, with the program installed now; or start again from its first page",
                entry.name
            ),
        ));
    }
    let mut rest = &body[5..];
    let mut field = || -> Option<Vec<u8>> {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_be_bytes(*len) as usize;
        let (item, tail) = (tail.get(..len)?, tail.get(len..)?);
        rest = tail;
        Some(item.to_vec())
    };
    let args = field().ok_or_else(|| damaged("its arguments are cut short"))?;
    let last = field().ok_or_else(|| damaged("its position is cut short"))?;
    if !rest.is_empty() {
        return Err(damaged("it has bytes past its end"));
    }
    let args = serde_json::from_slice::<serde_json::Value>(&args)
        .ok()
        .and_then(|json| Value::from_json(&json))
        .and_then(|value| match value {
            Value::List(items) => Some(items),
            _ => None,
        })
        .ok_or_else(|| damaged("its arguments do not decode"))?;
    Ok((args, last))
}

fn hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

impl crate::engine::Engine {
    /// The first page of a pageable query (E0532 for another), with the
    /// token of the next when this one came out full.
    pub fn run_page(&self, entry: &Entry, args: &[Value]) -> Result<Page> {
        self.page(entry, args, None)
    }

    /// The page after the one `token` ended: the same query, arguments
    /// and bound, from the entry after that page's last.
    pub fn next_page(&self, entry: &Entry, token: &str) -> Result<Page> {
        let scan = pageable_scan(entry)?;
        let (args, after) = decode_token(entry, self.schema_generation()?, token)?;
        self.canonical_position(entry, scan, &after)?;
        self.page(entry, &args, Some(after))
    }

    /// A token's position is a key this rqc wrote: one holding a `Float`
    /// `-0.0` (the same value as `0.0`, spec/types.md "Value identity",
    /// but other bytes, so another place in the order) was never written
    /// by a page, and would start the next page at a place no value has.
    fn canonical_position(&self, entry: &Entry, scan: u32, after: &[u8]) -> Result<()> {
        let mut descending: &[bool] = &[];
        let schema = &self.installed()?.schema;
        entry.root.walk(&mut |node| {
            if let Op::Scan {
                table,
                index: Some(index),
                ..
            } = &node.op
            {
                if node.id == scan {
                    if let Some(index) = schema.table(table).and_then(|t| t.index(index)) {
                        descending = &index.descending;
                    }
                }
            }
        });
        if crate::encoding::key::key_holds_minus_zero(after, descending) {
            return Err(RuntimeError::new(
                "E0533",
                "the page token is damaged: its position holds -0.0, which no stored key holds",
                "pass the token exactly as the previous page gave it, or start again from the first page",
            ));
        }
        Ok(())
    }

    /// The arguments of the first page `token` continues from, the token
    /// checked as [`next_page`](Self::next_page) checks it.
    pub fn page_arguments(&self, entry: &Entry, token: &str) -> Result<Vec<Value>> {
        pageable_scan(entry)?;
        Ok(decode_token(entry, self.schema_generation()?, token)?.0)
    }

    fn page(&self, entry: &Entry, args: &[Value], after: Option<Vec<u8>>) -> Result<Page> {
        let scan = pageable_scan(entry)?;
        let args = &crate::engine::check_args(entry, args)?[..];
        let (bound, accesses) = self.bound_entry(entry)?;
        let ((mut output, cursor), attempts) = crate::backoff::retrying(|| {
            let session = crate::session::Session::read(self.store())?;
            let cursor = PageCursor::new(scan, after.clone());
            let (output, _, cursor) = crate::engine::evaluate_paged(
                bound,
                &accesses,
                entry,
                args,
                session,
                false,
                Some(cursor),
            )?;
            Ok((output, cursor))
        })?;
        output.attempts = attempts;
        let cursor = cursor.ok_or_else(|| crate::error::internal("a paged run lost its cursor"))?;
        let token = match (&cursor.last, cursor.full) {
            (Some(last), true) => Some(encode_token(entry, self.schema_generation()?, args, last)),
            _ => None,
        };
        Ok(Page { output, token })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rqc_plan::{Bound, ParamSpec, ParamType};

    fn entry(name: &str, constant: i64) -> Entry {
        Entry {
            module: "m".into(),
            name: name.into(),
            kind: EntryKind::Query,
            params: vec![ParamSpec {
                name: "x".into(),
                ty: ParamType::List(rqc_plan::ColumnType::Int),
                max: Some(3),
                min: None,
                max_param: None,
            }],
            bound: Bound {
                seeks: 1,
                rows: 1,
                round_trips: 1,
            },
            root: Node {
                id: 0,
                op: Op::Const(Value::Int(constant)),
                bound: None,
            },
        }
    }

    /// The token's bytes with a new checksum, as a forger would make them.
    fn resealed(token: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut bytes = hex(token).unwrap();
        bytes.truncate(bytes.len() - 4);
        edit(&mut bytes);
        bytes.extend(crc32fast::hash(&bytes).to_be_bytes());
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn a_token_gives_back_its_arguments_and_position_and_refuses_every_other_query() {
        let feed = entry("feed", 1);
        let args = vec![
            Value::List(vec![Value::Int(i64::MIN), Value::Int(i64::MAX)]),
            Value::Float(2.5),
            Value::Str("é, \"quoted\"".into()),
            Value::Null,
            Value::record(vec![("a".into(), Value::Bool(true))]),
        ];
        let last = vec![0, 255, 7, 0];
        let token = encode_token(&feed, b"g1", &args, &last);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(
            decode_token(&feed, b"g1", &token).unwrap(),
            (args.clone(), last.clone())
        );
        // Another name, or the same name with another plan.
        for other in [entry("other", 1), entry("feed", 2)] {
            assert_eq!(
                decode_token(&other, b"g1", &token).unwrap_err().code,
                "E0534"
            );
        }
        // The same query under another schema generation (a migration may
        // have redefined the index its pages walk).
        assert_eq!(
            decode_token(&feed, b"g2", &token).unwrap_err().code,
            "E0534"
        );
        // Another token format, resealed so that only the version differs.
        let newer = resealed(&token, |bytes| bytes[0] = TOKEN_VERSION + 1);
        assert_eq!(
            decode_token(&feed, b"g1", &newer).unwrap_err().code,
            "E0535"
        );
        // Any one byte changed, or cut anywhere: the checksum fails.
        for at in 0..token.len() / 2 {
            let mut bytes = hex(&token).unwrap();
            bytes[at] ^= 0x20;
            let damaged: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(
                decode_token(&feed, b"g1", &damaged).unwrap_err().code,
                "E0533",
                "byte {at}"
            );
            assert_eq!(
                decode_token(&feed, b"g1", &token[..at * 2])
                    .unwrap_err()
                    .code,
                "E0533"
            );
        }
        // Resealed with lengths that lie: refused, never read past the end.
        let long = resealed(&token, |bytes| {
            bytes[5..9].copy_from_slice(&u32::MAX.to_be_bytes())
        });
        assert_eq!(decode_token(&feed, b"g1", &long).unwrap_err().code, "E0533");
        let extra = resealed(&token, |bytes| bytes.push(0));
        assert_eq!(
            decode_token(&feed, b"g1", &extra).unwrap_err().code,
            "E0533"
        );
        for text in ["", "zz", "0", "é"] {
            assert_eq!(
                decode_token(&feed, b"g1", text).unwrap_err().code,
                "E0533",
                "{text}"
            );
        }
    }
}
