//! Rows for `rqc load` and `rqc restore`, streamed from a `.jsonl` or `.csv` file one row at a time.
//!
//! A [`RowFile`] opens its file again each time the load asks for the rows
//! (a load whose commit conflicts runs again), skips a byte-order mark, and
//! counts the bytes read so that progress can be shown without knowing the
//! number of rows first. Nothing holds more than one row in memory.

mod csv;
mod jsonl;

use rqc::{LoadRow, RowSource};
use rqc_plan::number::{self, NumberError, NumberType};
use rqc_plan::{ColumnType, TableSchema, Value};
use rqc_runtime::RuntimeError;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The two formats rows are read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line, keys naming columns.
    Jsonl,
    /// A header line naming the columns, then one record per row (RFC 4180).
    Csv,
}

impl Format {
    /// The format a file's extension names, if any.
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => Some(Format::Jsonl),
            Some("csv") => Some(Format::Csv),
            _ => None,
        }
    }
}

/// A file of rows for one table.
pub struct RowFile {
    path: PathBuf,
    table: TableSchema,
    format: Format,
    /// Bytes read so far by the current pass.
    read: Arc<AtomicU64>,
}

impl RowFile {
    pub fn new(path: &Path, table: TableSchema, format: Format) -> RowFile {
        RowFile {
            path: path.to_path_buf(),
            table,
            format,
            read: Arc::default(),
        }
    }

    /// A counter of the bytes the current pass has read, for progress.
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        self.read.clone()
    }
}

impl RowSource for RowFile {
    fn rows(
        &mut self,
    ) -> rqc_runtime::Result<Box<dyn Iterator<Item = rqc_runtime::Result<LoadRow>> + '_>> {
        self.read.store(0, Ordering::Relaxed);
        let file = std::fs::File::open(&self.path).map_err(|e| unreadable(&self.path, e))?;
        let mut input = BufReader::new(Counting {
            inner: file,
            read: self.read.clone(),
        });
        skip_byte_order_mark(&mut input).map_err(|e| unreadable(&self.path, e))?;
        Ok(match self.format {
            Format::Jsonl => Box::new(jsonl::rows(&self.table, input, &self.path)),
            Format::Csv => csv::rows(&self.table, input, &self.path),
        })
    }
}

/// A reader that counts what it reads.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Skips a UTF-8 byte-order mark at the start (editors on Windows write one).
fn skip_byte_order_mark(input: &mut impl BufRead) -> std::io::Result<()> {
    if input.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
        input.consume(3);
    }
    Ok(())
}

/// The file could not be read (not a fault of a row): the load stops.
fn unreadable(path: &Path, error: std::io::Error) -> RuntimeError {
    RuntimeError::new(
        "E0600",
        format!("{}: {error}", path.display()),
        "check the path and its permissions",
    )
}

/// What a row that leaves out column `position` takes: a `key auto`
/// table's key is none, for the load to generate; any other column its
/// default, or none when optional (`Column::left_out`); `None` when it
/// must be given.
fn left_out(table: &TableSchema, position: usize) -> Option<Value> {
    if table.auto && table.key == [position] {
        return Some(Value::Null);
    }
    table.columns[position].left_out()
}

/// A line that is not a row of the table.
fn bad(message: String, help: &str) -> RuntimeError {
    RuntimeError::new("E0525", message, help)
}

/// The value of a field given as text (CSV), of the column's type: a
/// number by the one number parser (`rqc_plan::number`, its own codes),
/// anything else that is not of the type `Ok(None)`.
fn from_text(ty: &ColumnType, text: &str) -> Result<Option<Value>, NumberError> {
    Ok(match ty {
        ColumnType::Optional(_) if text.is_empty() => Some(Value::Null),
        ColumnType::Optional(inner) => return from_text(inner, text),
        ColumnType::Int => Some(number::parse(text, NumberType::Int)?),
        ColumnType::Float => Some(number::parse(text, NumberType::Float)?),
        ColumnType::Bool => match text.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ColumnType::String => Some(Value::Str(text.to_string())),
    })
}

/// A field's number the number parser refused, with its code, naming the
/// column.
fn bad_number(column: &str, error: NumberError) -> RuntimeError {
    RuntimeError::new(
        error.code,
        format!("`{column}`: {}", error.message),
        error.help,
    )
}

#[cfg(test)]
mod tests;
