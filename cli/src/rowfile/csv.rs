//! CSV for `rqc load`, read by the `csv` crate (RFC 4180: quoted fields may hold commas, quotes and newlines).
//!
//! The header names the columns, in any order; a column it leaves out
//! takes its default, or none if it is optional; an empty field of an
//! optional column is none.

use super::{bad, from_text, left_out, unreadable};
use rqc::LoadRow;
use rqc_plan::{TableSchema, Value};
use rqc_runtime::RuntimeError;
use std::cell::Cell;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

type Rows<'a> = Box<dyn Iterator<Item = rqc_runtime::Result<LoadRow>> + 'a>;

/// The rows of `input`, each with the line its record starts on. A quoted
/// field still open at the end of the file (its closing quote missing) is
/// refused at the line it opened on, after the rows: the reader took the
/// rest of the file as its text, so the load must not go ahead.
pub fn rows<'a>(table: &'a TableSchema, input: impl Read + 'a, path: &'a Path) -> Rows<'a> {
    let quotes = Rc::new(Cell::new(Quoting::default()));
    let input = QuoteWatch {
        inner: input,
        state: Rc::clone(&quotes),
    };
    let reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let mut records = reader.into_records();
    let unclosed = std::iter::from_fn(move || {
        let opened = quotes.get().open_since?;
        quotes.set(Quoting::default());
        Some(Ok((
            opened,
            Err(bad(
                "this quoted field is never closed: the rest of the file was read as its text"
                    .into(),
                "close the field's quote (`\"…\"`; a quote inside it is written twice, `\"\"`)",
            )),
        )))
    });
    let header = match records.next() {
        None => return Box::new(std::iter::empty()),
        Some(Err(error)) => return refused_file(read_error(error, path)),
        Some(Ok(header)) => header,
    };
    let positions = match columns_of(table, &header) {
        Ok(positions) => positions,
        Err(error) => return refused_file(Ok((1, Err(error)))),
    };
    let rows = records.filter_map(move |record| {
        let record = match record {
            Ok(record) => record,
            Err(error) => return Some(read_error(error, path)),
        };
        let line = record.position().map_or(0, |p| p.line() as usize);
        // A line of blanks is no row (a line with nothing the reader skips).
        if record.len() == 1 && record[0].trim().is_empty() && positions.len() > 1 {
            return None;
        }
        Some(Ok((line, row_of(table, &positions, &record))))
    });
    Box::new(rows.chain(unclosed))
}

/// Where the reader is, as RFC 4180 reads quotes (as the `csv` crate
/// does): a quote opens a field only at its start, and inside one a
/// doubled quote is a quote.
#[derive(Clone, Copy, Default)]
struct Quoting {
    /// The line being read (1 is the header).
    line: usize,
    /// Inside a quoted field opened on this line.
    open_since: Option<usize>,
    /// Just read a quote inside a quoted field: it closes it unless
    /// another follows.
    quote_in_quoted: bool,
    /// Inside a field that did not start with a quote.
    mid_field: bool,
}

impl Quoting {
    fn byte(&mut self, byte: u8) {
        if self.line == 0 {
            self.line = 1;
        }
        if self.quote_in_quoted {
            self.quote_in_quoted = false;
            if byte == b'"' {
                return; // `""`: a quote inside the field.
            }
            self.open_since = None;
            self.mid_field = true;
        }
        match (self.open_since, byte) {
            (Some(_), b'"') => self.quote_in_quoted = true,
            (Some(_), b'\n') => self.line += 1,
            (Some(_), _) => {}
            (None, b'\n') => {
                self.line += 1;
                self.mid_field = false;
            }
            (None, b',') => self.mid_field = false,
            (None, b'"') if !self.mid_field => self.open_since = Some(self.line),
            (None, b'\r') => {}
            (None, _) => self.mid_field = true,
        }
    }
}

/// A reader that follows the quoting of what passes through it.
struct QuoteWatch<R> {
    inner: R,
    state: Rc<Cell<Quoting>>,
}

impl<R: Read> Read for QuoteWatch<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut state = self.state.get();
        buf[..n].iter().for_each(|&b| state.byte(b));
        // At the end, a quote just read closed its field.
        if n == 0 && state.quote_in_quoted {
            state.quote_in_quoted = false;
            state.open_since = None;
        }
        self.state.set(state);
        Ok(n)
    }
}

/// The only item of a file whose header is refused, or that cannot be read.
fn refused_file<'a>(item: rqc_runtime::Result<LoadRow>) -> Rows<'a> {
    Box::new(std::iter::once(item))
}

/// The column each header field names.
fn columns_of(
    table: &TableSchema,
    header: &::csv::StringRecord,
) -> Result<Vec<usize>, RuntimeError> {
    let mut positions = Vec::new();
    for name in header {
        // A column's name is an identifier: read in normal form C, as the
        // program's own (spec/types.md, "Value identity").
        let name = crate::json_text::name(name.trim());
        match table.column(&name) {
            Some(p) if positions.contains(&p) => {
                return Err(bad(
                    format!("the header names the column `{name}` twice"),
                    "name each column once in the header",
                ))
            }
            Some(p) => positions.push(p),
            None => {
                return Err(bad(
                    format!("`{}` has no column `{name}`", table.name),
                    "name the table's columns in the header",
                ))
            }
        }
    }
    if let Some((_, missing)) = table
        .columns
        .iter()
        .enumerate()
        .find(|(i, _)| !positions.contains(i) && left_out(table, *i).is_none())
    {
        return Err(bad(
            format!("the header lacks the column `{}`", missing.name),
            "name every column that is neither optional (`?`) nor defaulted (`= …`) in the header",
        ));
    }
    Ok(positions)
}

/// One record's row.
fn row_of(
    table: &TableSchema,
    positions: &[usize],
    record: &::csv::StringRecord,
) -> Result<Vec<Value>, RuntimeError> {
    if record.len() != positions.len() {
        return Err(bad(
            format!(
                "{} fields, the header has {}",
                record.len(),
                positions.len()
            ),
            "give one field per header column",
        ));
    }
    // A column the header leaves out takes its default (`columns_of` let
    // through only those that have one).
    let mut row: Vec<Value> = (0..table.columns.len())
        .map(|c| left_out(table, c).unwrap_or(Value::Null))
        .collect();
    for (field, &position) in record.iter().zip(positions) {
        let column = &table.columns[position];
        row[position] = from_text(&column.ty, field)
            .map_err(|error| super::bad_number(&column.name, error))?
            .ok_or_else(|| {
                bad(
                    format!(
                        "`{}` is `{}`, and `{field}` is not one",
                        column.name,
                        column.ty.name()
                    ),
                    "give each column a value of its type",
                )
            })?;
    }
    Ok(row)
}

/// A record the reader could not take: bytes that are not UTF-8 refuse
/// that record; a failure to read the file stops the load.
fn read_error(error: ::csv::Error, path: &Path) -> rqc_runtime::Result<LoadRow> {
    let line = error.position().map_or(0, |p| p.line() as usize);
    match error.into_kind() {
        ::csv::ErrorKind::Io(error) => Err(unreadable(path, error)),
        ::csv::ErrorKind::Utf8 { .. } => Ok((
            line,
            Err(bad(
                "the record is not UTF-8".into(),
                "save the file as UTF-8",
            )),
        )),
        other => Err(RuntimeError::new(
            "E0525",
            format!("{}: line {line}: {other:?}", path.display()),
            "check that the file is CSV with a header line",
        )),
    }
}
