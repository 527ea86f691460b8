//! A dump's manifest (`dump.json`, written last): how many rows each table's file holds, so that `restore` refuses a dump it cannot read whole before it writes anything.
//!
//! `rqc dump` writes the tables' files first and the manifest after them:
//! a dump cut short (killed, a full disk) has no manifest, or files whose
//! lines are not the rows it counts. `restore` counts each file's lines
//! against it before it creates the database (spec/storage.md, "`verify`,
//! `dump`, `restore`").

use rqc::Error;
use std::collections::BTreeMap;
use std::path::Path;

/// The manifest's file in a dump directory.
pub const MANIFEST_FILE: &str = "dump.json";

/// Writes the manifest of a dump whose tables hold `rows` rows each.
pub fn write(out: &Path, rows: &BTreeMap<String, usize>) -> Result<(), Error> {
    let tables: serde_json::Map<String, serde_json::Value> = rows
        .iter()
        .map(|(table, n)| (table.clone(), (*n as u64).into()))
        .collect();
    let manifest = serde_json::json!({ "tables": tables });
    let path = out.join(MANIFEST_FILE);
    std::fs::write(&path, format!("{manifest}\n")).map_err(|error| Error::Io { path, error })
}

fn refused(code: &'static str, message: String, help: &str) -> Error {
    Error::Runtime(rqc::RuntimeError::new(code, message, help))
}

/// The rows each table's file of the dump in `from` holds, as its
/// manifest says, once every file is found to hold exactly that many
/// lines: E0680 when there is no dump there (no directory, or no
/// manifest: an older rqc's dump, or one cut short), E0681 when a file is
/// missing or holds another number of rows.
pub fn read_whole(from: &Path) -> Result<BTreeMap<String, u64>, Error> {
    let redump = "dump the database again with this rqc (`rqc dump --db DIR --out SAVED`): a dump writes its manifest last, once every table's file is whole";
    if !from.is_dir() {
        return Err(refused(
            "E0680",
            format!(
                "there is no dump in `{}`: it is not a directory",
                from.display()
            ),
            "give the directory `rqc dump --out` wrote; nothing was written",
        ));
    }
    let path = from.join(MANIFEST_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refused(
                "E0680",
                format!(
                    "the dump in `{}` has no manifest ({MANIFEST_FILE}): it may have been cut short, and nothing says which rows it should hold",
                    from.display()
                ),
                redump,
            ))
        }
        Err(error) => return Err(Error::Io { path, error }),
    };
    let tables = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("tables").and_then(|t| t.as_object()).cloned())
        .and_then(|tables| {
            tables
                .into_iter()
                .map(|(table, n)| Some((table, n.as_u64()?)))
                .collect::<Option<BTreeMap<String, u64>>>()
        })
        .ok_or_else(|| {
            refused(
                "E0680",
                format!("`{}` is not a dump's manifest", path.display()),
                redump,
            )
        })?;
    for (table, rows) in &tables {
        let file = from.join(format!("{table}.jsonl"));
        let lines = match std::fs::read(&file) {
            Ok(bytes) => Some(bytes.iter().filter(|&&b| b == b'\n').count() as u64),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => return Err(Error::Io { path: file, error }),
        };
        if lines != Some(*rows) {
            let found = match lines {
                None => "is missing".to_string(),
                Some(n) => format!("holds {n} rows"),
            };
            return Err(refused(
                "E0681",
                format!(
                    "the dump in `{}` is not whole: `{table}.jsonl` {found}, and its manifest says {rows}",
                    from.display()
                ),
                redump,
            ));
        }
    }
    Ok(tables)
}
