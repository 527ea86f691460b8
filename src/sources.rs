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
            let text = read_source(&path)?;
            // A byte-order mark, as some editors write, is no part of the program.
            let text = match text.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_string(),
                None => text,
            };
            Ok((path.display().to_string(), text))
        })
        .collect()
}

/// The most bytes a source file may hold: 64 MiB, whatever the file is (a
/// regular file, a pipe, a device such as `/dev/zero` that never ends).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// The text of one source file, read up to [`MAX_SOURCE_BYTES`]: past
/// them, E0009 (nothing more is read, so memory stays bounded).
pub fn read_source(path: &Path) -> Result<String, Error> {
    use std::io::Read;
    let io = |error| Error::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(Error::Runtime(rqc_runtime::RuntimeError::new(
            "E0009",
            format!(
                "{}: a source file may hold at most {} MiB, and this one holds more",
                path.display(),
                MAX_SOURCE_BYTES >> 20
            ),
            "split the program into files of less than 64 MiB each, or check that the path names a source file",
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
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
