//! Reading a program: `.rq` sources from files and directories, or a plan file `rqc compile -o` wrote.

use crate::error::Error;
use rqc_plan::CompiledProgram;
use rqc_runtime::plan_format::{self, Origin};
use std::path::{Path, PathBuf};

/// The compiled program in a plan file written by `rqc compile -o`. Its
/// format version is read first: another format is E0513, a file that is
/// not a compiled program E0517; then the plan verifier checks it whole
/// (E0610–E0649, spec/cost.md §12), so that a refused file is refused
/// before any database is opened (installing verifies it again).
pub fn read_plan(path: &Path) -> Result<CompiledProgram, Error> {
    let bytes = std::fs::read(path).map_err(|error| Error::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let program = plan_format::decode(&bytes, Origin::File(path))?;
    rqc_runtime::verifier::verify(&program)?;
    Ok(program)
}

/// The `(name, text)` pairs of a program given as files and directories.
/// A directory contributes every `.rq` file below it, in path order.
pub fn read_program(paths: &[PathBuf]) -> Result<Vec<(String, String)>, Error> {
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|error| Error::Io {
            path: path.clone(),
            error,
        })?;
        if metadata.is_dir() {
            let mut found = Vec::new();
            collect_rq(path, &mut found)?;
            if found.is_empty() {
                return Err(Error::Io {
                    path: path.clone(),
                    error: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the directory holds no `.rq` file",
                    ),
                });
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|error| Error::Io {
                path: path.clone(),
                error,
            })?;
            // A byte-order mark, as some editors write, is no part of the program.
            let text = match text.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_string(),
                None => text,
            };
            Ok((path.display().to_string(), text))
        })
        .collect()
}

fn collect_rq(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io = |error| Error::Io {
        path: dir.to_path_buf(),
        error,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect_rq(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rq") {
            out.push(path);
        }
    }
    Ok(())
}
